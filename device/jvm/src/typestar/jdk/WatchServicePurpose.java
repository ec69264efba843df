package typestar.jdk;

import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import typestar.agent.CallbackSink;
import typestar.agent.HarnessFailure;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/**
 * {@code java.nio.file.WatchService} on a fresh temporary directory (docs/targets/java_watch.md), the
 * JDK's counterpart of Android's FileObserver. Callins: {@code register}
 * ({@code dir.register(ws, ENTRY_CREATE, ENTRY_DELETE)}), {@code create} / {@code delete} (the file
 * {@code f} in the directory), {@code close} ({@code ws.close()}). Callbacks: {@code created},
 * {@code deleted}, reported by a thread that takes the service's keys.
 *
 * <p>Determinism: the platform delivers file events asynchronously, microseconds to milliseconds
 * after the file operation. When the directory is registered and the service open, {@code create}
 * and {@code delete} wait (≤ 5 s, else a harness failure) until the event has been reported, so it
 * is queued before the next step; otherwise no event is expected and none is awaited — an event
 * arriving anyway is a timing violation the agent reports, never a learned answer. Learning purpose
 * {@code callbacksDrained}: deliver the event (wait) before the next callin.
 */
public final class WatchServicePurpose implements PurposeProvider {
    /** One watched directory, its service, and the thread that reports its events. */
    public static final class Watch {
        final Path dir;
        final Path file;
        final WatchService ws;
        final Thread poller;
        final Object lock = new Object();
        long reported;           // events reported so far
        boolean registered;
        boolean closed;

        Watch(CallbackSink sink) throws Exception {
            dir = Files.createTempDirectory("typestar-watch");
            file = dir.resolve("f");
            ws = FileSystems.getDefault().newWatchService();
            poller = new Thread(() -> {
                try {
                    while (true) {
                        WatchKey key = ws.take();
                        for (WatchEvent<?> e : key.pollEvents()) {
                            if (e.kind() == StandardWatchEventKinds.ENTRY_CREATE) sink.emit("created");
                            else if (e.kind() == StandardWatchEventKinds.ENTRY_DELETE) sink.emit("deleted");
                            else sink.emit(e.kind().name());  // OVERFLOW: undeclared, a harness error
                            synchronized (lock) {
                                ++reported;
                                lock.notifyAll();
                            }
                        }
                        key.reset();
                    }
                } catch (ClosedWatchServiceException | InterruptedException e) {
                    // the service was closed: no more events
                }
            }, "typestar-watch");
            poller.setDaemon(true);
            poller.start();
        }

        /** Runs a file operation; when an event is expected, waits until it has been reported. */
        void fileOperation(java.util.concurrent.Callable<?> operation) throws Exception {
            long before;
            synchronized (lock) {
                before = reported;
            }
            operation.call();
            if (!registered || closed) return;
            long deadline = System.nanoTime() + 5_000_000_000L;
            synchronized (lock) {
                while (reported == before) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) throw new HarnessFailure("no file event within 5 s of the operation");
                    lock.wait(Math.max(1, left / 1_000_000));
                }
            }
        }

        void dispose() throws Exception {
            ws.close();
            poller.join(5000);
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("java.nio.file.WatchService", Watch.class)
                .framework("jdk-" + Runtime.version().feature())
                .reset(Watch::new)
                .teardown(Watch::dispose)
                .callin("close", w -> {
                    w.ws.close();
                    w.closed = true;
                })
                .callin("create", w -> w.fileOperation(() -> Files.createFile(w.file)))
                .callin("delete", w -> w.fileOperation(() -> {
                    Files.delete(w.file);
                    return null;
                }))
                .callin("register", w -> {
                    w.dir.register(w.ws, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
                    w.registered = true;
                })
                .callback("created")
                .callback("deleted")
                .timing(100, 0)
                .callbacksDrained()
                .quietIsStable();
    }
}
