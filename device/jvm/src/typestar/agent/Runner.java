package typestar.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs a {@link LearningPurpose} one session at a time (the Java mirror of the C++
 * InProcessDevice): every session gets a fresh instance from the reset snippet and a fresh epoch,
 * so a callback of an old instance never reaches a later session. Callbacks are queued in arrival
 * order, also while a callin runs; {@code wait} takes the oldest or answers {@code quiet} after the
 * timeout (DroidStar §5.2). A callback after a {@code wait} answered {@code quiet} (tmax too small),
 * sooner than tmin after a callin, or queued when the next callin starts is recorded and reported as
 * a DeviceException before the runner answers again — never as a wrong output. Not thread-safe (the
 * agent serialises a session's requests); callbacks may arrive on any thread.
 */
final class Runner {
    private static final Logger LOG = Logger.getLogger("typestar.device");

    /** The output of one step and, for a callin that threw, the exception's class. */
    record Answer(String output, String exception) {}

    /**
     * The output of a callin the learning purpose denies (not run; the session ends there like after
     * {@code err}): not the class's answer. Over /v1 it is {@code err} marked {@code outside_purpose}
     * (device/PROTOCOL.md); the C++ name is typestar::kOutsidePurpose.
     */
    static final String OUTSIDE_PURPOSE = "unknown:purpose";

    /** What a whole query ran: outputs, steps and waits really executed. */
    record Run(List<String> outputs, int steps, int waits) {}

    private final LearningPurpose<Object> purpose;
    private final CallbackSink.Monitor monitor;
    private final String who;
    private CallbackSink.Epoch epoch;
    private Object instance;
    private final List<StepRecord> history = new ArrayList<>();
    private boolean errored;
    private long queries;

    @SuppressWarnings("unchecked")
    Runner(LearningPurpose<?> purpose) {
        this.purpose = (LearningPurpose<Object>) purpose;
        this.monitor = new CallbackSink.Monitor(purpose.sourceMap(), purpose.tmaxMs, purpose.tminMs);
        this.who = "jvm:" + purpose.name;
    }

    long tmaxMs() {
        return purpose.tmaxMs;
    }

    /** Ends the previous instance, reports pending violations, makes a fresh instance. */
    void reset() throws DeviceException {
        finish();
        monitor.check(who, queries, true);  // a violation of an earlier query, found now
        ++queries;
        history.clear();
        errored = false;
        CallbackSink.Epoch e = new CallbackSink.Epoch(monitor, queries);
        epoch = e;
        try {
            instance = purpose.reset.create(new CallbackSink(e));
        } catch (Exception | Error ex) {
            finish();
            throw new DeviceException(who + ": the reset snippet failed: " + describe(ex));
        }
        if (instance == null) {
            finish();
            throw new DeviceException(who + ": the reset snippet returned no instance");
        }
    }

    /** Closes the epoch and tears the instance down. Never throws. */
    void finish() {
        CallbackSink.Epoch e = epoch;
        if (e != null) {
            synchronized (e) {
                e.open = false;
                e.queue.clear();
                e.tearingDown = true;
            }
        }
        if (instance != null && purpose.teardown != null) {
            try {
                purpose.teardown.run(instance);
            } catch (Exception | Error ex) {
                LOG.warning(who + ": the teardown snippet threw " + ex.getClass().getName() + "; ignored");
            }
        }
        if (e != null) {
            synchronized (e) {
                e.tearingDown = false;  // later callbacks are the class's own: late, or tmax violations
            }
        }
        instance = null;
        epoch = null;
    }

    /** Throws for a violation recorded and not yet reported (e.g. a late callback after the last session). */
    void checkTiming() throws DeviceException {
        monitor.check(who, queries, false);
    }

    /** Whether the device has the {@code wait} input (false for a Mealy device declaring noWait()). */
    boolean hasWait() {
        return purpose.hasWait;
    }

    /** Whether {@code name} is a callin. */
    boolean isCallin(String name) {
        return purpose.inputs.containsKey(name);
    }

    /** One callin ({@code wait == false}) or {@code wait} with {@code timeoutMs}. */
    Answer step(String input, boolean isWait, long timeoutMs) throws DeviceException {
        if (epoch == null || instance == null) throw new DeviceException(who + ": step without reset");
        Answer answer;
        if (errored) {
            answer = new Answer("err", null);
        } else if (!isWait && purpose.callbacksDrained && queued()) {
            answer = new Answer(OUTSIDE_PURPOSE, null);  // outside the purpose: a callback is undelivered
        } else if (purpose.filter != null && !allowed(input)) {
            // outside the learning purpose: a callin is unknown there, a wait (no unknown waits) err
            answer = new Answer(isWait ? "err" : OUTSIDE_PURPOSE, null);
        } else {
            answer = isWait ? new Answer(runWait(timeoutMs), null) : runCallin(input);
        }
        if ((answer.output().equals("err") && purpose.errAbsorbing) || answer.output().equals(OUTSIDE_PURPOSE)) errored = true;
        history.add(new StepRecord(input, answer.output()));
        monitor.check(who, queries, false);
        return answer;
    }

    /**
     * A whole query on a fresh instance, with the contract of the C++ {@code Device::run}: stops at
     * the first {@code err} or {@link #OUTSIDE_PURPOSE} (the rest is {@code err}, not run) and, when quiet is stable, answers a
     * {@code wait} right after a quiet {@code wait} without running it.
     */
    Run run(List<String> inputs) throws DeviceException {
        return run(inputs, purpose.tmaxMs);
    }

    /** {@link #run(List)} with every {@code wait} waiting {@code timeoutMs} (a /v1/run's timeout_ms). */
    Run run(List<String> inputs, long timeoutMs) throws DeviceException {
        List<String> outputs = new ArrayList<>(inputs.size());
        int steps = 0;
        int waits = 0;
        reset();
        boolean endedQuiet = false;  // the last step run was a `wait` answered quiet
        try {
            boolean quiescent = false;
            for (int i = 0; i < inputs.size(); ++i) {
                String input = inputs.get(i);
                boolean isWait = input.equals("wait");
                if (isWait && quiescent) {
                    outputs.add("quiet");
                    continue;
                }
                String out = step(input, isWait, timeoutMs).output();
                ++steps;
                if (isWait) ++waits;
                outputs.add(out);
                endedQuiet = isWait && out.equals("quiet");
                if ((out.equals("err") && purpose.errAbsorbing) || out.equals(OUTSIDE_PURPOSE)) {
                    while (outputs.size() < inputs.size()) outputs.add("err");
                    break;
                }
                quiescent = endedQuiet && purpose.quietIsStable;
            }
            if (endedQuiet) quietGrace(Math.min(timeoutMs, purpose.tmaxMs));
        } finally {
            finish();
        }
        // A callback recorded up to the teardown (which mutes the instance) broke this run's timing:
        // also one that came just as the grace ended.
        if (endedQuiet) monitor.check(who, queries, false);
        return new Run(outputs, steps, waits);
    }

    /**
     * After a run that ended in a {@code wait} answered quiet, listens {@code ms} longer while the
     * instance lives (as the C++ InProcessDevice's quiet grace): a callback then breaks tmax in THIS
     * run, so the client re-runs the word (the protocol's {@code timing violation}, earlier_query
     * false) instead of the answer being given and the violation found only at the next reset, as an
     * earlier query's. Ends at the first violation; {@link #run} throws it after the teardown.
     */
    private void quietGrace(long ms) throws DeviceException {
        CallbackSink.Epoch e = epoch;
        if (e == null || ms <= 0) return;
        synchronized (e) {
            long deadline = System.nanoTime() + ms * 1_000_000L;
            while (!monitor.hasPending()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                try {
                    e.wait(left / 1_000_000L, (int) (left % 1_000_000L));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new DeviceException(who + ": interrupted while waiting (the agent is stopping)");
                }
            }
        }
    }

    private boolean allowed(String input) throws DeviceException {
        try {
            return purpose.filter.allows(List.copyOf(history), input);
        } catch (RuntimeException | Error ex) {
            throw new DeviceException(who + ": the learning-purpose filter threw " + describe(ex));
        }
    }

    private boolean queued() {
        CallbackSink.Epoch e = epoch;
        synchronized (e) {
            return !e.queue.isEmpty();
        }
    }

    private Answer runCallin(String name) throws DeviceException {
        Callin<Object> callin = purpose.inputs.get(name);
        CallbackSink.Epoch e = epoch;
        String message = null;
        String queuedSymbol = null;
        synchronized (e) {
            if (!e.queue.isEmpty()) {
                // A callback came between the previous step and this callin: the callin would run in
                // a state the synchronous closure does not describe (DroidStar §5.2, tmin).
                queuedSymbol = e.queue.peekFirst();
                message = "tmin violated: callback '" + e.queue.peekFirst() + "' arrived before callin '" + name
                        + "' could run, in query #" + e.query + " '" + e.word + "'";
            }
            e.quietDeclared = false;
            e.lastCallin = System.nanoTime();
            e.lastCallinName = name;
            if (e.word.length() > 0) e.word.append(' ');
            e.word.append(name);
        }
        if (message != null) monitor.record(message, "tmin", "queued", queuedSymbol, 0, queries);
        AnsweringCallin<Object> answering = purpose.answering.get(name);
        String returned = null;
        try {
            if (answering != null) returned = answering.run(instance);
            else callin.run(instance);
        } catch (HarnessFailure ex) {
            throw new DeviceException(who + ": callin '" + name + "': the harness failed: " + ex.getMessage());
        } catch (Exception | Error ex) {  // like the C++ device's catch (...): any throw refuses the callin
            if (LOG.isLoggable(Level.FINE)) LOG.fine(who + ": callin " + name + " refused: " + describe(ex));
            return new Answer("err", ex.getClass().getName());
        }
        if (returned == null || returned.isEmpty() || returned.equals("ok")) return new Answer("ok", null);
        return new Answer(namedOutput(name, returned), null);
    }

    /** The output a Mealy callin returned, or a DeviceException naming a name that cannot be one. */
    private String namedOutput(String callin, String output) throws DeviceException {
        boolean control = output.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f);
        boolean reserved = LearningPurpose.RESERVED.contains(output) && !(output.equals("err") && !purpose.errAbsorbing);
        if (control || reserved || output.length() > 256 || output.startsWith("unknown:")
                || purpose.callbacks.containsKey(output))
            throw new DeviceException(who + ": callin '" + callin + "' answered " + Json.dump(new com.google.gson.JsonPrimitive(output))
                    + ", which cannot be a named output (a callback, a reserved name, unknown:..., a control "
                    + "character or over 256 characters)");
        return output;
    }

    private String runWait(long timeoutMs) throws DeviceException {
        CallbackSink.Epoch e = epoch;
        synchronized (e) {
            if (e.word.length() > 0) e.word.append(' ');
            e.word.append("wait");
            long start = System.nanoTime();
            long deadline = start + timeoutMs * 1_000_000L;
            while (e.queue.isEmpty() && !monitor.hasPending()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    e.quietDeclared = true;
                    e.quietWaitStart = start;
                    return "quiet";
                }
                try {
                    e.wait(left / 1_000_000L, (int) (left % 1_000_000L));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new DeviceException(who + ": interrupted while waiting (the agent is stopping)");
                }
            }
            if (!e.queue.isEmpty()) return e.queue.pollFirst();
            return "quiet";  // a harness error is pending: step() reports it
        }
    }

    static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getName() : t.getClass().getName() + ": " + t.getMessage();
    }
}
