package typestar.agent;

/**
 * The snippet of a parameterised callin (PSYCO): runs a framework method on the instance made by
 * the reset snippet with one concrete argument tuple, given as the printed value its partition's
 * {@link Values} generated (the snippet turns it into arguments). Throwing anything refuses the
 * callin ({@code err}), exactly as for a {@link Callin}; a {@link HarnessFailure} is a broken harness.
 */
@FunctionalInterface
public interface ParameterisedCallin<T> {
    /** Runs the callin on {@code instance} with the printed argument tuple {@code value}; throw to refuse it. */
    void run(T instance, String value) throws Exception;
}
