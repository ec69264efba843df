package typestar.junit;

import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
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
final class Served {
    private final String name;
    private final Function<Agent.Config, Agent> agent;
    private final Supplier<String> status;
    private final Supplier<long[]> ownTiming;
    private final BiConsumer<Long, Long> timing;

    private Served(String name, Function<Agent.Config, Agent> agent, Supplier<String> status, Supplier<long[]> ownTiming,
                   BiConsumer<Long, Long> timing) {
        this.name = name;
        this.agent = agent;
        this.status = status;
        this.ownTiming = ownTiming;
        this.timing = timing;
    }

    static Served of(LearningPurpose<?> purpose) {
        return new Served(purpose.name(), config -> new Agent(purpose, config), () -> Agent.statusOf(purpose), () -> {
            try (LocalDevice d = new LocalDevice(purpose)) {
                return new long[] {d.tmaxMs(), d.tminMs()};
            }
        }, purpose::timing);
    }

    static Served of(DataPurpose<?> purpose) {
        return new Served(purpose.name(), config -> new Agent(purpose, config), () -> Agent.statusOf(purpose), () -> null,
                (tmax, tmin) -> {
                    throw new IllegalStateException("a data device never waits: no tmax or tmin");
                });
    }

    /** The class the purpose drives. */
    String name() {
        return name;
    }

    /** An agent serving the purpose with {@code config} (not started). */
    Agent agent(Agent.Config config) {
        return agent.apply(config);
    }

    /** The {@code /v1/status} body its agent serves (for {@code typestar suite --device-status}). */
    String status() {
        return status.get();
    }

    /** The purpose's own {tmax, tmin} in ms; null for a device that never waits (a data device). */
    long[] ownTiming() {
        return ownTiming.get();
    }

    /** Makes the purpose wait with {@code tmaxMs} and {@code tminMs} (only when ownTiming() is not null). */
    void timing(long tmaxMs, long tminMs) {
        timing.accept(tmaxMs, tminMs);
    }

    /** "jvm:NAME (in this JVM)". */
    String describe() {
        return "jvm:" + name + " (in this JVM)";
    }

    /** The run's report entries: {@code typestar.tmax} when the device waits, and {@code typestar.device}. */
    void addRun(Map<String, String> entries) {
        long[] t = ownTiming();
        if (t != null) entries.put("typestar.tmax", String.valueOf(t[0]));
        entries.put("typestar.device", describe());
    }
}
