package typestar.agent;

/** The harness failed (timing violation, undeclared callback, failing reset): never a wrong answer. */
public final class DeviceException extends Exception {
    private static final long serialVersionUID = 1L;

    /** An exception with the message the agent puts into its {@code device error} body. */
    public DeviceException(String message) {
        super(message);
    }
}
