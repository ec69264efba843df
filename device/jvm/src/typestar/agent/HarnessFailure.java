package typestar.agent;

/**
 * Thrown by a snippet when the harness itself failed (e.g. a bounded wait inside a callin timed
 * out): the agent answers {@code device error} instead of {@code err}, so the failure is never
 * learned as behaviour of the class.
 */
public final class HarnessFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure with a message naming what the harness expected. */
    public HarnessFailure(String message) {
        super(message);
    }
}
