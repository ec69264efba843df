package typestar.agent;

/**
 * The reset snippet (DroidStar's reset): a fresh instance with its listeners registered on the
 * sink. Throwing means the harness failed (the session is not created).
 */
@FunctionalInterface
public interface Reset<T> {
    /** Returns a fresh instance, never null. */
    T create(CallbackSink sink) throws Exception;
}
