package typestar.jdk;

import java.util.Timer;
import java.util.TimerTask;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/**
 * {@code java.util.Timer} with one {@code TimerTask} (docs/targets/java_timer.md). Callins:
 * {@code schedule} ({@code timer.schedule(task, 100 ms)}), {@code cancel} ({@code timer.cancel()}),
 * {@code cancelTask} ({@code task.cancel()}), {@code purge} ({@code timer.purge()}); the callback
 * {@code run} is the task's {@code run()} on the timer's thread. Return values are ignored: a callin
 * answers {@code err} only when it throws.
 */
public final class TimerPurpose implements PurposeProvider {
    /** The delay of {@code schedule}: callbacks arrive at least this long after the callin. */
    static final long DELAY_MS = 100;

    /** One timer and its task. */
    public static final class Harness {
        final Timer timer = new Timer("typestar-timer", true);
        TimerTask task;
    }

    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("java.util.Timer", Harness.class)
                .framework("jdk-" + Runtime.version().feature())
                .reset(sink -> {
                    Harness h = new Harness();
                    h.task = new TimerTask() {
                        @Override
                        public void run() {
                            sink.emit("run");
                        }
                    };
                    return h;
                })
                .teardown(h -> h.timer.cancel())
                .callin("cancel", h -> h.timer.cancel())
                .callin("cancelTask", h -> h.task.cancel())
                .callin("purge", h -> h.timer.purge())
                .callin("schedule", h -> h.timer.schedule(h.task, DELAY_MS))
                .callback("run")
                // run arrives 100 ms after schedule (tmin 20 ms), and within tmax 250 ms under load.
                .timing(250, 20)
                // Nothing happens silently: a scheduled task is always seen as `run` by the next wait.
                .quietIsStable();
    }
}
