package typestar.testing;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import typestar.agent.CallbackSink;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/**
 * A probe class for the agent's protocol tests (tests/jvm): every way a step can end. tmax 80 ms,
 * tmin 5 ms, quiet declared stable. Callins: {@code start} (callback {@code done} 20 ms later),
 * {@code refuse} (throws IllegalStateException), {@code once} (refused the second time), {@code late}
 * ({@code done} 250 ms later: after a quiet wait, a tmax violation), {@code now} ({@code done} inside the
 * callin: a tmin violation), {@code bogus} (an undeclared callback), {@code broken} (a harness failure).
 */
public class ProbePurpose implements PurposeProvider {
    private static final ScheduledExecutorService TIMERS = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "probe-timer");
        t.setDaemon(true);
        return t;
    });

    /** One probe instance. */
    public static final class Probe {
        final CallbackSink sink;
        int calls;

        Probe(CallbackSink sink) {
            this.sink = sink;
        }

        void later(long ms) {
            TIMERS.schedule(() -> sink.emit("done"), ms, TimeUnit.MILLISECONDS);
        }
    }

    protected LearningPurpose<Probe> base() {
        return LearningPurpose.of("Probe", Probe.class)
                .framework("probe-1")
                .reset(Probe::new)
                .callin("start", p -> p.later(20))
                .callin("refuse", p -> {
                    throw new IllegalStateException("refused");
                })
                .callin("once", p -> {
                    if (++p.calls > 1) throw new IllegalStateException("called twice");
                })
                .callin("late", p -> p.later(250))
                .callin("now", p -> p.sink.emit("done"))
                .callin("bogus", p -> p.sink.emit("mystery"))
                .callin("broken", p -> {
                    throw new typestar.agent.HarnessFailure("the probe's harness broke");
                })
                .callback("done")
                .timing(80, 5);
    }

    @Override
    public LearningPurpose<?> purpose() {
        return base().quietIsStable();
    }

    /** The same probe without the quiet-stability declaration. */
    public static final class Unstable extends ProbePurpose {
        @Override
        public LearningPurpose<?> purpose() {
            return base();
        }
    }
}
