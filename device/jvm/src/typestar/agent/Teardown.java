package typestar.agent;

/** A tear-down snippet run after each session (e.g. {@code timer.cancel()}); exceptions are logged and ignored. */
@FunctionalInterface
public interface Teardown<T> {
    /** Releases what the instance holds. */
    void run(T instance) throws Exception;
}
