package typestar.agent;

/**
 * What {@code --class-purpose FQCN} names for a data device: a public class with a
 * public no-argument constructor; the agent calls {@link #dataPurpose()} once, validates the
 * purpose and serves it with the data fields of /v1 (device/PROTOCOL.md, "Data devices").
 */
public interface DataPurposeProvider {
    /** The data purpose of the class (built with {@link DataPurpose}). */
    DataPurpose<?> dataPurpose();
}
