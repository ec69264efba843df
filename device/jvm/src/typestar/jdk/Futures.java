package typestar.jdk;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import typestar.agent.CallbackSink;
import typestar.agent.HarnessFailure;
import typestar.agent.LearningPurpose;

/**
 * One alphabet over two {@code java.util.concurrent.Future} implementations
 * (docs/targets/java_future.md, docs/targets/java_upgrade.md): a computation that takes 100 ms on an
 * executor thread, and a listener that reports completion. Callins: {@code submit} (hands the
 * computation to the executor and waits until it has begun — or, for a cancelled FutureTask, until
 * the executor found nothing to run), {@code cancel} ({@code cancel(true)}, then waits until a begun
 * computation has ended, and reports an interrupted computation as the callback {@code interrupted}),
 * {@code get} ({@code get(0, ms)}: refused unless completed normally). Callbacks: {@code done} (the
 * future completed: normally or by cancellation), {@code interrupted}. A second {@code submit} is
 * refused by the harness (one computation per future).
 */
final class Futures {
    static final long WORK_MS = 100;
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "typestar-future");
        t.setDaemon(true);
        return t;
    });

    private Futures() {}

    /** One future, its computation's progress, and how to start it. */
    static final class Harness {
        final CallbackSink sink;
        Future<String> future;
        Runnable start;
        boolean submitted;
        final CountDownLatch began = new CountDownLatch(1);   // the computation began (or will never run)
        final CountDownLatch ended = new CountDownLatch(1);   // a begun computation ended
        volatile boolean running;
        volatile boolean interrupted;
        boolean interruptReported;

        Harness(CallbackSink sink) {
            this.sink = sink;
        }

        String compute() throws InterruptedException {
            running = true;
            began.countDown();
            try {
                Thread.sleep(WORK_MS);
                return "value";
            } catch (InterruptedException e) {
                interrupted = true;
                throw e;
            } finally {
                ended.countDown();
            }
        }
    }

    static Harness completable(CallbackSink sink) {
        Harness h = new Harness(sink);
        CompletableFuture<String> f = new CompletableFuture<>();
        f.whenComplete((v, e) -> sink.emit("done"));
        h.future = f;
        h.start = () -> POOL.execute(() -> {
            try {
                f.complete(h.compute());
            } catch (InterruptedException e) {
                f.completeExceptionally(e);
            }
        });
        return h;
    }

    static Harness futureTask(CallbackSink sink) {
        Harness h = new Harness(sink);
        FutureTask<String> t = new FutureTask<>(h::compute) {
            @Override
            protected void done() {
                sink.emit("done");
            }
        };
        h.future = t;
        h.start = () -> POOL.execute(() -> {
            t.run();
            h.began.countDown();  // a cancelled task never runs the computation
        });
        return h;
    }

    static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(5, TimeUnit.SECONDS)) throw new HarnessFailure(what + " within 5 s");
    }

    static LearningPurpose<Harness> purpose(String name, typestar.agent.Reset<Harness> reset) {
        return LearningPurpose.of(name, Harness.class)
                .framework("jdk-" + Runtime.version().feature())
                .reset(reset)
                .callin("cancel", h -> {
                    if (h.ended.getCount() == 0 && !h.future.isDone())
                        throw new HarnessFailure("the computation ended before cancel could run (callins must follow "
                                + "each other within " + WORK_MS + " ms)");
                    h.future.cancel(true);
                    if (h.running) await(h.ended, "the computation did not end");
                    if (h.interrupted && !h.interruptReported) {
                        h.interruptReported = true;  // the interruption happened once: one callback
                        h.sink.emit("interrupted");
                    }
                })
                .callin("get", h -> h.future.get(0, TimeUnit.MILLISECONDS))
                .callin("submit", h -> {
                    if (h.submitted) throw new IllegalStateException("submitted twice (harness rule)");
                    h.submitted = true;
                    h.start.run();
                    await(h.began, "the executor did not start the computation");
                })
                .callback("done")
                .callback("interrupted")
                // done arrives 100 ms after submit, or inside cancel; tmax 250 ms.
                .timing(250, 0)
                // done arrives inside cancel: a callin before it is delivered is outside the purpose.
                .callbacksDrained()
                .quietIsStable();
    }
}
