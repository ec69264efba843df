package typestar.agent;

/**
 * One callin snippet: runs a framework method on the instance made by the reset snippet.
 * Throwing anything means the callin was refused: the device answers {@code err} and records the
 * exception's class for the diagnostics.
 */
@FunctionalInterface
public interface Callin<T> {
    /** Runs the callin on {@code instance}; throw to refuse it. */
    void run(T instance) throws Exception;
}
