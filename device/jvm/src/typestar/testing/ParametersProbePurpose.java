package typestar.testing;

import java.util.List;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;
import typestar.agent.Values;

/**
 * Parameterised callins for the agent's protocol tests (tests/jvm): {@code set(n: int)} with the
 * partitions {@code neg} (n &lt; 0, fixed -1) and {@code nat} (n &gt;= 0, a range [0, 1000]: both ends and
 * seeded draws), refused for n &lt; 0; {@code get} refused before a successful {@code set}. The nested
 * classes are invalid declarations the agent must refuse to serve.
 */
public class ParametersProbePurpose implements PurposeProvider {
    /** One instance. */
    public static final class Cell {
        boolean set;
    }

    static LearningPurpose<Cell> base() {
        return LearningPurpose.of("Cell", Cell.class)
                .framework("probe-1")
                .reset(sink -> new Cell())
                .callin("get", c -> {
                    if (!c.set) throw new IllegalStateException("not set");
                })
                .callinWith("set", List.of(LearningPurpose.param("n", "int")), (c, v) -> {
                    if (Long.parseLong(v) < 0) throw new IllegalArgumentException("negative");
                    c.set = true;
                })
                .timing(10, 0)
                .quietIsStable();
    }

    @Override
    public LearningPurpose<?> purpose() {
        return base()
                .partition("set", "neg", "n < 0", Values.fixed("-1"))
                .partition("set", "nat", "n >= 0", Values.range(0, 1000));
    }

    /** The probe with {@code get} performed by the peer (the environment role). */
    public static final class WithEnvironment implements PurposeProvider {
        @Override
        public LearningPurpose<?> purpose() {
            return base().environment("get").partition("set", "any", "true", Values.fixed("1"));
        }
    }

    /** {@code set} with a seeded sampler: n uniform in [0, 1000). */
    public static final class WithSampler implements PurposeProvider {
        @Override
        public LearningPurpose<?> purpose() {
            return base().partition("set", "nat", "n >= 0", Values.sampler(r -> Integer.toString(r.nextInt(1000)), "uniform [0, 1000)"));
        }
    }

    /** Two partitions named alike. */
    public static final class DuplicatePartition implements PurposeProvider {
        @Override
        public LearningPurpose<?> purpose() {
            return base().partition("set", "a", "n < 0", Values.fixed("-1")).partition("set", "a", "n >= 0", Values.fixed("1"));
        }
    }

    /** One value in two partitions. */
    public static final class SharedValue implements PurposeProvider {
        @Override
        public LearningPurpose<?> purpose() {
            return base().partition("set", "a", "n <= 0", Values.fixed("-1", "0")).partition("set", "b", "n >= 0", Values.fixed("0"));
        }
    }

    /** A partition name the spec cannot carry. */
    public static final class BadName implements PurposeProvider {
        @Override
        public LearningPurpose<?> purpose() {
            return base().partition("set", "n is small", "n < 5", Values.fixed("1"));
        }
    }

    /** A parameterised callin without partitions. */
    public static final class NoPartition implements PurposeProvider {
        @Override
        public LearningPurpose<?> purpose() {
            return base();
        }
    }
}
