package typestar.agent;

/**
 * What {@code --class-purpose FQCN} names: a public class with a public no-argument constructor
 * that describes one framework class. The agent instantiates it once and calls {@link #purpose()}
 * once; the returned purpose is validated before the agent serves.
 */
public interface PurposeProvider {
    /** The learning purpose of the class (built with {@link LearningPurpose}). */
    LearningPurpose<?> purpose();
}
