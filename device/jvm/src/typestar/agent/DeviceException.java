package typestar.agent;

/** The harness failed (timing violation, undeclared callback, failing reset): never a wrong answer. */
public final class DeviceException extends Exception {
    private static final long serialVersionUID = 1L;

    /** A timing violation as PROTOCOL.md's {@code value.timing}: kind, callback, delay_ms, ...; null otherwise. */
    private final transient com.google.gson.JsonObject timing;

    /** An exception with the message the agent puts into its {@code device error} body. */
    public DeviceException(String message) {
        this(message, null);
    }

    /** A timing violation: answered as {@code timing violation} with {@code timing} (the client re-runs the word). */
    public DeviceException(String message, com.google.gson.JsonObject timing) {
        super(message);
        this.timing = timing;
    }

    /** The violation's data, or null when the harness failed otherwise. */
    public com.google.gson.JsonObject timing() {
        return timing;
    }
}
