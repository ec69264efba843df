package typestar.agent;

/**
 * One callin snippet of a Mealy device (device/PROTOCOL.md, "Mealy devices"): runs a method on the
 * instance and returns the output it answers ({@code null}, {@code ""} or {@code "ok"}: {@code ok};
 * any other name, e.g. {@code "CONNACK"}, is that output, learned by clients when first answered).
 * Throwing anything answers {@code err}.
 */
@FunctionalInterface
public interface AnsweringCallin<T> {
    /** Runs the callin on {@code instance} and returns its output; throw to refuse it. */
    String run(T instance) throws Exception;
}
