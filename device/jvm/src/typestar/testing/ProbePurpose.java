package typestar.testing;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import typestar.agent.CallbackSink;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeFilter;
import typestar.agent.PurposeProvider;
import java.util.Set;

/**
 * A probe class for the agent's protocol tests (tests/jvm): every way a step can end. tmax 80 ms,
 * tmin 5 ms, quiet declared stable. Callins: {@code start} (callback {@code done} 20 ms later),
 * {@code refuse} (throws IllegalStateException), {@code once} (refused the second time), {@code late}
 * ({@code done} 250 ms later: after a quiet wait, a tmax violation), {@code now} ({@code done} inside the
 * callin: a tmin violation), {@code bogus} (an undeclared callback), {@code broken} (a harness failure),
 * {@code finish} (the raw callback {@code finished}, merged into {@code done}). Learning purpose: at
 * most one {@code start}/{@code finish} waiting for its {@code done}.
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
            later(ms, "done");
        }

        void later(long ms, String callback) {
            TIMERS.schedule(() -> sink.emit(callback), ms, TimeUnit.MILLISECONDS);
        }
    }

    protected LearningPurpose<Probe> base() {
        return LearningPurpose.of("Probe", Probe.class)
                .framework("probe-1")
                .reset(Probe::new)
                // A teardown that causes a callback (like cancelling a future): ignored by the agent.
                .teardown(p -> p.sink.emit("done"))
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
                .callin("finish", p -> p.later(20, "finished"))
                .callin("explode", p -> {})
                .mergedCallback("done", "done", "finished")
                // at most one `start` or `finish` waiting for its `done`
                .restrictTo(PurposeFilter.atMostPending(Set.of("start", "finish"), Set.of("done"), 1))
                // a buggy filter: the agent must answer device error, not crash or leak the instance
                .restrictTo((history, next) -> {
                    if (next.equals("explode")) throw new IllegalStateException("filter bug");
                    return true;
                })
                .timing(80, 5);
    }

    @Override
    public LearningPurpose<?> purpose() {
        return base().quietIsStable();
    }

    /** An invalid purpose: {@code wait} is reserved (the agent must refuse to start). */
    public static final class Reserved implements PurposeProvider {
        @Override
        public LearningPurpose<?> purpose() {
            return LearningPurpose.of("Reserved", Probe.class).reset(Probe::new).callin("wait", p -> {});
        }
    }

    /** The same probe without the quiet-stability declaration. */
    public static final class Unstable extends ProbePurpose {
        @Override
        public LearningPurpose<?> purpose() {
            return base();
        }
    }
}
