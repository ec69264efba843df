package typestar.agent;

import java.util.List;

/**
 * A {@link LearningPurpose} run in this JVM, one query at a time — what the agent serves over
 * /v1/run, without HTTP, token or port: for test runners in the JVM (typestar.junit). Every query
 * starts from a fresh instance, stops at the first {@code err} or {@link #OUTSIDE_PURPOSE} (the rest
 * answers {@code err}, not run) and, when the purpose declares quiet stable, answers a {@code wait} right after a quiet one
 * without running it. Not thread-safe.
 */
public final class LocalDevice implements AutoCloseable {
    /**
     * The output of a callin the learning purpose denies (not run; the rest of the query answers
     * {@code err}): not the class's answer, so a test runner reports the transition as not tested.
     */
    public static final String OUTSIDE_PURPOSE = Runner.OUTSIDE_PURPOSE;

    private final LearningPurpose<?> purpose;
    private final Runner runner;

    /** Throws IllegalArgumentException for an invalid purpose. */
    public LocalDevice(LearningPurpose<?> purpose) {
        purpose.validate();
        this.purpose = purpose;
        this.runner = new Runner(purpose);
    }

    /** The outputs of {@code inputs} (callins and {@code wait}) from a fresh instance; DeviceException when the harness fails. */
    public List<String> run(List<String> inputs) throws DeviceException {
        for (String input : inputs)
            if (!input.equals("wait") && !runner.isCallin(input))
                throw new DeviceException("jvm:" + purpose.name + ": unknown input '" + Json.excerpt(input) + "'");
        return runner.run(inputs).outputs();
    }

    /**
     * The quiescence double-check of one word (typestar::Device::confirm_wait): {@code prefix} on a
     * fresh instance, then a {@code wait} listening {@code timeoutMs}; its answer ({@code quiet}, or the
     * callback heard), or {@code err} when the prefix was refused or left the learning purpose.
     */
    public String confirmWait(List<String> prefix, long timeoutMs) throws DeviceException {
        runner.reset();
        try {
            for (String input : prefix) {
                if (!input.equals("wait") && !runner.isCallin(input))
                    throw new DeviceException("jvm:" + purpose.name + ": unknown input '" + Json.excerpt(input) + "'");
                String out = runner.step(input, input.equals("wait"), purpose.tmaxMs).output();
                if (out.equals("err") || out.equals(OUTSIDE_PURPOSE)) return "err";
            }
            return runner.step("wait", true, timeoutMs).output();
        } finally {
            runner.finish();
        }
    }

    /** The class name the purpose drives. */
    public String className() {
        return purpose.name;
    }

    /** The device inputs but {@code wait}: the purpose's callins (concrete values of parameterised ones). */
    public List<String> callins() {
        return purpose.callinNames();
    }

    /** Whether the purpose declares parameterised callins (its specs name abstract inputs, not {@link #callins()}). */
    public boolean parameterised() {
        return !purpose.parameterised.isEmpty();
    }

    /** The purpose's callback symbols. */
    public List<String> callbacks() {
        return purpose.callbackNames();
    }

    /** "jvm:NAME (in this JVM)". */
    public String describe() {
        return "jvm:" + purpose.name + " (in this JVM)";
    }

    /** The purpose's tmax: how long a {@code wait} listens before answering {@code quiet}. */
    public long tmaxMs() {
        return purpose.tmaxMs;
    }

    /** The purpose's tmin: no callback is expected sooner after its callin. */
    public long tminMs() {
        return purpose.tminMs;
    }

    /** Whether the purpose declares that a {@code wait} answered {@code quiet} changes nothing. */
    public boolean quietIsStable() {
        return purpose.quietIsStable;
    }

    /** Ends the last instance; reports nothing. */
    @Override
    public void close() {
        runner.finish();
    }
}
