package typestar.junit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The spec's tests run once, by the session: {@code typestar check SPEC --device URL --bound B
 * --format json} (docs/runners.md, schema {@code typestar-check/2}) against this JVM's purpose served
 * for the occasion, with the cache, batching, late-callback judgement and quiescence double-check of
 * {@code typestar check}; after a difference the session proposes (Proposals#decisionOptions). The first test to run starts it (the others wait for it: safe under JUnit's
 * parallel mode); each test then reports its own result: passed, failed with the session's message
 * (a difference also with the proposal and what changed; a timing failure proposes no spec), or
 * aborted with the reason it was not tested.
 */
final class CheckRun {
    private final TypestarSpec owner;
    private final Proposals proposals;
    private final Path spec;
    private final long bound;
    private JsonObject result;         // the check's object, once run
    private String runError;           // why the check gave no object
    private final Map<String, JsonObject> byName = new HashMap<>();
    private boolean updateAnnounced;   // update mode: the CLI's report printed once
    private boolean assumptionsPrinted;
    private final String[] servedUrl = new String[1];  // the loopback URL of the latest check
    private String resultUrl;                          // ... and of the one whose results the tests report

    CheckRun(TypestarSpec owner, Proposals proposals, long bound) {
        this.owner = owner;
        this.proposals = proposals;
        this.spec = owner.specPath();
        this.bound = bound;
    }

    /** {@code typestar check --format json} on {@code file} through the served purpose; null with {@code error[0]} set when it printed no object. */
    private JsonObject check(Path file, String[] error) {
        // auto: the tests run at the spec's bound (`bound`), a proposal is learned raising B.
        String asked = "auto".equals(owner.bound) ? "auto" : String.valueOf(bound);
        List<String> args = new ArrayList<>(List.of(file.toString(), "--bound", asked, "--format", "json"));
        args.addAll(proposals.decisionOptions());
        Cli.Result r;
        try {
            r = proposals.serve("check", args, servedUrl);
        } catch (IOException e) {
            error[0] = "cannot serve the purpose to typestar check: " + e.getMessage();
            return null;
        }
        try {
            JsonObject j = JsonParser.parseString(r.out()).getAsJsonObject();
            if (!j.has("format") || !j.get("format").getAsString().equals("typestar-check/2") || !j.has("tests")) {
                error[0] = r.describe() + "\nit printed no typestar-check/2 object (an older typestar CLI?)";
                return null;
            }
            return j;
        } catch (RuntimeException e) {
            error[0] = r.describe() + "\nits output is not JSON: " + e.getMessage();
            return null;
        }
    }

    private synchronized JsonObject result() {
        if (result == null && runError == null) {
            String[] error = new String[1];
            result = check(spec, error);
            resultUrl = servedUrl[0];
            if (result == null) {
                runError = error[0];
            } else {
                for (JsonElement e : result.getAsJsonArray("tests")) byName.put(e.getAsJsonObject().get("name").getAsString(), e.getAsJsonObject());
            }
        }
        return result;
    }

    /** The result of the test of transition {@code transition} ({@code <State>_<input>}), as this JUnit test's outcome. */
    void report(String name, String transition, String state, String input) {
        JsonObject r = result();
        if (r == null) Assertions.fail("typestar: " + name + ": typestar check did not run the spec's tests: " + runError);
        JsonObject t;
        synchronized (this) {
            t = byName.get(transition);
        }
        if (t == null)
            Assertions.fail("typestar: " + name + ": typestar check gave no result for this test (" + r.get("summary").getAsString() + ")");
        String status = t.get("status").getAsString();
        String message = localReproduce(text(t, "message"), r, name);
        switch (status) {
            case "passed" -> {
                if (t.has("updated") && t.get("updated").getAsBoolean()) updated(r, message);
                else printAssumptions(r);
            }
            case "skipped", "not_tested" -> Assumptions.abort(message.strip());
            case "failed" -> failed(name, t, message);
            default -> Assertions.fail("typestar: " + name + ": typestar check answered status '" + status + "':\n" + message);
        }
    }

    /**
     * A failed test: the session's message, which after a difference ends with the session's proposal
     * (what changed, this test's own transition marked, where it went, the accept command that works).
     */
    private void failed(String name, JsonObject t, String message) {
        StringBuilder m = new StringBuilder(message);
        if (!m.toString().endsWith("\n")) m.append('\n');
        if (!message.contains("Reproduce: ")) m.append(Launcher.reproduce(owner, name, bound));
        Assertions.fail(m.toString());
    }

    /** Update mode: the CLI wrote the spec and it explains this test's answer (said once per spec, then per test). */
    private void updated(JsonObject r, String message) {
        synchronized (this) {
            if (!updateAnnounced) {
                updateAnnounced = true;
                System.out.print("typestar: " + text(r.getAsJsonObject("proposal"), "report"));
            }
        }
        System.out.print(message);
    }

    /** The proposal of the spec's check (typestar-check/2 {@code proposal}), or null when there is none. */
    JsonObject proposal() {
        JsonObject r = result();
        if (r == null || !r.has("proposal") || r.get("proposal").isJsonNull()) return null;
        return r.getAsJsonObject("proposal");
    }

    /** Why the check gave no object (null when it did). */
    String runError() {
        result();
        return runError;
    }

    /**
     * The session's reproduce line names the loopback URL this run served the purpose on (gone when the
     * JVM exits); the printed one runs the test class through an exec: launcher instead.
     */
    private String localReproduce(String message, JsonObject r, String name) {
        String served = "Reproduce: " + text(r, "reproduce") + "\n";
        if (message.contains(served)) message = message.replace(served, Launcher.reproduce(owner, name, bound));
        if (resultUrl == null) return message;
        String device = "  device: " + resultUrl + "\n";
        message = message.replace(device, "  device: " + owner.device() + " (served to typestar check on " + resultUrl + ")\n");
        return message.replace("device " + resultUrl, "device " + owner.device());
    }

    /** The assumptions a pass relied on, once per spec (as `typestar check` prints its assumptions block). */
    private synchronized void printAssumptions(JsonObject r) {
        if (assumptionsPrinted) return;
        assumptionsPrinted = true;
        StringBuilder b = new StringBuilder("typestar: " + spec + " (" + owner.suiteName() + ", bound B=" + bound
                + "): passing is bounded evidence, not a proof. It relies on:\n");
        List<String> all = new ArrayList<>();
        for (JsonElement e : r.getAsJsonArray("assumptions")) all.add(e.getAsString());
        String note = owner.timingNote();
        if (!note.isEmpty()) all.add(note);
        for (String a : all) b.append("  - ").append(a).append('\n');
        System.out.print(b);
    }

    private static String text(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "" : e.getAsString();
    }
}
