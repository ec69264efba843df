package typestar.junit;

import java.util.Map;
import typestar.agent.Agent;
import typestar.agent.DataPurpose;
import typestar.agent.LearningPurpose;
import typestar.agent.LocalDevice;

/**
 * What a {@link TypestarSpec} serves to the typestar CLI: a typestate spec's {@link LearningPurpose}
 * or a register-automaton spec's {@link DataPurpose} (device/PROTOCOL.md, "Data devices"). The runner
 * knows its purpose only through this: which kind of spec it is checked against is the session's
 * decision (the spec file, and the status the purpose's agent would serve).
 */
interface Served {
    /** The class the purpose drives. */
    String name();

    /** An agent serving the purpose with {@code config} (not started). */
    Agent agent(Agent.Config config);

    /** The {@code /v1/status} body its agent serves (for {@code typestar suite --device-status}). */
    String status();

    /** The purpose's own {tmax, tmin} in ms; null for a device that never waits (a data device). */
    long[] ownTiming();

    /** Makes the purpose wait with {@code tmaxMs} and {@code tminMs} (only when ownTiming() is not null). */
    void timing(long tmaxMs, long tminMs);

    /** "jvm:NAME (in this JVM)". */
    default String describe() {
        return "jvm:" + name() + " (in this JVM)";
    }

    /** The run's report entries: {@code typestar.tmax} when the device waits, and {@code typestar.device}. */
    default void addRun(Map<String, String> entries) {
        long[] t = ownTiming();
        if (t != null) entries.put("typestar.tmax", String.valueOf(t[0]));
        entries.put("typestar.device", describe());
    }

    static Served of(LearningPurpose<?> purpose) {
        return new Served() {
            @Override
            public String name() {
                return purpose.name();
            }

            @Override
            public Agent agent(Agent.Config config) {
                return new Agent(purpose, config);
            }

            @Override
            public String status() {
                return Agent.statusOf(purpose);
            }

            @Override
            public long[] ownTiming() {
                try (LocalDevice d = new LocalDevice(purpose)) {
                    return new long[] {d.tmaxMs(), d.tminMs()};
                }
            }

            @Override
            public void timing(long tmaxMs, long tminMs) {
                purpose.timing(tmaxMs, tminMs);
            }
        };
    }

    static Served of(DataPurpose<?> purpose) {
        return new Served() {
            @Override
            public String name() {
                return purpose.name();
            }

            @Override
            public Agent agent(Agent.Config config) {
                return new Agent(purpose, config);
            }

            @Override
            public String status() {
                return Agent.statusOf(purpose);
            }

            @Override
            public long[] ownTiming() {
                return null;
            }

            @Override
            public void timing(long tmaxMs, long tminMs) {
                throw new IllegalStateException("a data device never waits: no tmax or tmin");
            }
        };
    }
}
