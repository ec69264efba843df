package typestar.agent;

import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;

/**
 * Where listener code reports callbacks. Thread-safe: {@link #emit} may be called from any thread,
 * at any time, also after the session that created the instance has ended (the call is then
 * recorded as a late callback and never reaches another session). One sink per instance (session).
 */
public final class CallbackSink {
    private final Epoch epoch;

    CallbackSink(Epoch epoch) {
        this.epoch = epoch;
    }

    /**
     * Reports the callback {@code name} (a declared callback, or a source merged into one). An
     * undeclared name is recorded as a harness error, answered {@code device error} at the
     * session's next step; {@code emit} itself never throws.
     */
    public void emit(String name) {
        try {
            epoch.emit(name, System.nanoTime());
        } catch (RuntimeException | Error e) {
            // emit runs on foreign threads and must not throw; the monitor already holds what it could record.
        }
    }

    /** Device-level record shared by the epochs of one runner slot: pending violations and counts. */
    static final class Monitor {
        final Map<String, String> sources;  // raw callback name -> output symbol
        final long tmaxMs;
        final long tminMs;
        final java.util.List<String> pending = new java.util.ArrayList<>();
        /** Each pending record's timing data (null: a harness error), in the same order. */
        final java.util.List<com.google.gson.JsonObject> pendingTiming = new java.util.ArrayList<>();
        long callbacks;
        long late;
        long tmaxViolations;
        long tminViolations;
        long harnessErrors;

        Monitor(Map<String, String> sources, long tmaxMs, long tminMs) {
            this.sources = sources;
            this.tmaxMs = tmaxMs;
            this.tminMs = tminMs;
        }

        /**
         * A record; a timing violation ({@code kind} late, queued or early, else null: a harness error)
         * carries its callback, delay and query, answered as PROTOCOL.md's {@code timing violation}.
         */
        synchronized void record(String message, String counter, String kind, String callback, double delayMs, long query) {
            switch (counter) {
                case "tmax" -> ++tmaxViolations;
                case "tmin" -> ++tminViolations;
                default -> ++harnessErrors;
            }
            pending.add(message);
            com.google.gson.JsonObject t = null;
            if (kind != null) {
                t = new com.google.gson.JsonObject();
                t.addProperty("kind", kind);
                t.addProperty("callback", callback);
                t.addProperty("delay_ms", Math.max(0.0, delayMs));
                t.addProperty("tmax_ms", tmaxMs);
                t.addProperty("tmin_ms", tminMs);
                t.addProperty("query", query);
            }
            pendingTiming.add(t);
        }

        synchronized boolean hasPending() {
            return !pending.isEmpty();
        }

        /**
         * Throws DeviceException for violations recorded and not yet reported: with the first one's
         * timing data when every record is a timing violation, {@code earlier_query} when found at a
         * reset ({@code earlier}) or recorded in another query than {@code query} (that answer was given).
         */
        synchronized void check(String who, long query, boolean earlier) throws DeviceException {
            if (pending.isEmpty()) return;
            String message = who + ": " + pending.get(0);
            if (pending.size() > 1) message += " (and " + (pending.size() - 1) + " more)";
            com.google.gson.JsonObject timing = null;
            if (pendingTiming.stream().allMatch(java.util.Objects::nonNull)) {
                boolean before = earlier;
                for (com.google.gson.JsonObject t : pendingTiming) before |= t.get("query").getAsLong() != query;
                timing = pendingTiming.get(0).deepCopy();
                timing.remove("query");
                timing.addProperty("earlier_query", before);
                timing.addProperty("runs", 1);
            }
            pending.clear();
            pendingTiming.clear();
            throw new DeviceException(message, timing);
        }
    }

    /** One session's instance: its callback queue and what the session has done so far. */
    static final class Epoch {
        final Monitor monitor;
        final long query;
        final ArrayDeque<String> queue = new ArrayDeque<>();
        boolean open = true;
        boolean tearingDown = false;    // the teardown snippet runs: its callbacks are the harness's, ignored
        boolean quietDeclared = false;  // last step: `wait` answered quiet, no callin since
        long quietWaitStart;            // nanoTime of that wait's start
        long lastCallin = -1;           // nanoTime of the latest callin's start, -1 before any
        String lastCallinName = "";
        final StringBuilder word = new StringBuilder();

        Epoch(Monitor monitor, long query) {
            this.monitor = monitor;
            this.query = query;
        }

        void emit(String name, long now) {
            String symbol = monitor.sources.get(name);
            String message = null;
            String counter = null;
            double delay = 0;  // of a timing violation: from the quiet wait's or the callin's start, in ms
            synchronized (this) {
                String where = "query #" + query + " '" + word + "'";
                if (symbol == null) {
                    message = "undeclared callback '" + name + "' emitted in " + where;
                    counter = "harness";
                } else if (tearingDown) {
                    synchronized (monitor) {
                        ++monitor.late;
                    }
                    return;
                } else if (quietDeclared) {
                    message = "tmax too small: callback '" + symbol + "' arrived " + ms(now - quietWaitStart)
                            + " after the start of a `wait` that answered quiet (tmax " + monitor.tmaxMs
                            + " ms) in " + where;
                    counter = "tmax";
                    delay = (now - quietWaitStart) / 1e6;
                } else if (!open) {
                    synchronized (monitor) {
                        ++monitor.late;
                    }
                    return;
                } else {
                    if (lastCallin >= 0 && now - lastCallin < monitor.tminMs * 1_000_000L) {
                        message = "tmin violated: callback '" + symbol + "' arrived " + ms(now - lastCallin)
                                + " after callin '" + lastCallinName + "' started (tmin " + monitor.tminMs
                                + " ms) in " + where;
                        counter = "tmin";
                        delay = (now - lastCallin) / 1e6;
                    } else {
                        synchronized (monitor) {
                            ++monitor.callbacks;
                        }
                    }
                    queue.addLast(symbol);
                }
            }
            if (message != null) {
                String kind = counter.equals("tmax") ? "late" : counter.equals("tmin") ? "early" : null;
                monitor.record(message, counter, kind, symbol, delay, query);
            }
            synchronized (this) {
                notifyAll();
            }
        }

        static String ms(long nanos) {
            return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
        }
    }
}
