package typestar.junit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import typestar.agent.Agent;
import typestar.agent.LearningPurpose;
import typestar.agent.Agent;
import typestar.agent.LearningPurpose;

/**
 * The proposal flow of a {@link TypestarSpec} (docs/jvm-agent.md, "JUnit 5"): a missing spec learned by
 * the typestar CLI from this JVM's purpose (served on 127.0.0.1 for the occasion), the proposal after
 * a failure (once per spec, printed in full the first time), update mode taking it as
 * {@code typestar accept --auto} does, and which transitions changed ({@code typestar diff --format json}).
 * One per planned run: it reads the spec's resolved settings when made.
 */
final class Proposals {
    private final TypestarSpec owner;
    private final Path spec;
    private final LearningPurpose<?> purpose;
    private final String cli;
    private final String bound;
    private final String boundFrom;
    private final String learner;
    private final Long tmax;
    private final Long tmin;
    private String proposalReport;  // the full proposal and diff, once per spec
    private String proposalPointer;
    private boolean reportPrinted;
    boolean wroteSpec;              // update mode accepted the proposal into the spec
    private final List<JsonObject> changes = new ArrayList<>();  // stored -> proposed (typestar diff --format json)

    Proposals(TypestarSpec owner) {
        this.owner = owner;
        this.spec = owner.specPath();
        this.purpose = owner.purpose();
        this.cli = owner.cli;
        this.bound = owner.bound;
        this.boundFrom = owner.boundFrom;
        this.learner = owner.learner;
        this.tmax = owner.tmax;
        this.tmin = owner.tmin;
    }

    private static boolean ci() {
        return TypestarSpec.ci();
    }

    private static boolean update() {
        return TypestarSpec.update();
    }

    private JsonObject exported(Path file) {
        return owner.exported(file);
    }

    private String device() {
        return owner.device();
    }

    /** {@code <spec>.proposed.yaml} beside the spec. */
    Path proposedPath() {
        String f = spec.getFileName().toString();
        String stem = f.endsWith(".yaml") ? f.substring(0, f.length() - 5) : f.endsWith(".yml") ? f.substring(0, f.length() - 4) : f;
        return spec.resolveSibling(stem + ".proposed.yaml");
    }

    /** The pointer printed after the first failing test's full report. */
    String pointer() {
        return proposalPointer;
    }

    /**
     * {@code typestar learn ARGS --out OUT --device URL} against the purpose served on 127.0.0.1 (any
     * port, a fresh token). The spec written to {@code out} names the device by {@link #provenanceDevice()},
     * not by the loopback URL it was served on for the occasion: the same answers give the same spec,
     * byte for byte.
     */
    private Cli.Result learn(List<String> args, Path out) throws IOException {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of("--out", out.toString()));
        String[] url = new String[1];
        Cli.Result r = serve("learn", all, url);
        if (r.exit() == 0 && Files.exists(out)) {
            String yaml = Files.readString(out, StandardCharsets.UTF_8);
            String served = "device: \"" + url[0] + "\"";
            if (yaml.contains(served)) {
                Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), ".typestar-", ".yaml");
                Files.writeString(tmp, yaml.replace(served, "device: \"" + provenanceDevice() + "\""), StandardCharsets.UTF_8);
                Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return r;
    }

    /** What learned specs record as their device: stable across runs (the purpose, run in this JVM by JUnit). */
    String provenanceDevice() {
        return "junit in-process " + purpose.name();
    }

    /**
     * {@code typestar COMMAND --device URL ARGS} against the purpose served for the occasion (an
     * {@link Agent} on 127.0.0.1, any port, a fresh token passed as TYPESTAR_DEVICE_TOKEN, stopped
     * after); {@code url[0]} is the URL it was served on. Learning and checking both go through it.
     */
    Cli.Result serve(String subcommand, List<String> args, String[] url) throws IOException {
        Agent.Config config = new Agent.Config();
        config.port = 0;
        byte[] t = new byte[16];
        new SecureRandom().nextBytes(t);
        config.token = HexFormat.of().formatHex(t);
        Agent agent = new Agent(purpose, config);
        agent.start();
        try {
            url[0] = agent.url();
            List<String> command = new ArrayList<>(List.of(cli, subcommand, "--device", agent.url()));
            command.addAll(args);
            return Cli.run(command, Map.of("TYPESTAR_DEVICE_TOKEN", config.token));
        } finally {
            agent.stop();
        }
    }

    /** The options of {@code typestar learn} from the settings: --bound (given; else {@code fallback} when not null) and --learner. */
    private List<String> learnOptions(Long fallback) {
        List<String> out = new ArrayList<>();
        if (bound != null) out.addAll(List.of("--bound", bound));
        else if (fallback != null) out.addAll(List.of("--bound", String.valueOf(fallback)));
        if (learner != null) out.addAll(List.of("--learner", learner));
        if (tmax != null) out.addAll(List.of("--tmax", String.valueOf(tmax)));  // recorded in the learned spec
        if (tmin != null) out.addAll(List.of("--tmin", String.valueOf(tmin)));
        return out;
    }

    /**
     * What a learning run used and did, from the CLI: the states, the bound B it learned at, what it
     * searched beyond it ({@code provenance.explored}), the CLI's own summary line and warnings.
     */
    private String summary(Path learned, Cli.Result r, List<String> options) {
        JsonObject j = exported(learned);
        StringBuilder b = new StringBuilder();
        if (j != null) {
            b.append(j.getAsJsonObject("states").size()).append(" states, learned by the typestar CLI at distinguisher bound B=")
                    .append(j.getAsJsonObject("bounds").get("distinguisher").getAsLong());
        } else {
            b.append("learned by the typestar CLI");
        }
        int at = options.indexOf("--bound");
        b.append(" (asked: ").append(at >= 0 ? "--bound " + options.get(at + 1) : "the CLI's default").append(", from ")
                .append(bound != null ? boundFrom : at >= 0 ? "the stored spec" : "the default").append(").\n");
        if (j != null && j.has("provenance") && j.getAsJsonObject("provenance").has("explored"))
            b.append("Searched beyond the bound: ").append(j.getAsJsonObject("provenance").get("explored").getAsString()).append(".\n");
        for (String line : r.err().split("\n"))
            if (line.startsWith("typestar: warning: ") || line.startsWith("typestar: learned "))
                b.append(line.substring("typestar: ".length())).append('\n');
        return b.toString();
    }

    /** What {@code typestar accept} needs to take the proposal: --auto keeps the generated names of new states. */
    private String acceptCommand(boolean force) {
        return "typestar accept " + spec + " --auto" + (force ? " --force" : "");
    }

    void learnMissing() throws IOException {
        Path proposed = proposedPath();
        if (ci())
            Assertions.fail("typestar: the spec " + spec + " does not exist.\nCI is set, so typestar neither learns nor writes it "
                    + "here. Learn it locally (run this test without CI set: it writes " + proposed.getFileName()
                    + " for review, or the spec itself with TYPESTAR_UPDATE=1), then commit " + spec.getFileName() + ".");
        boolean update = update();
        Path out = update ? spec : proposed;
        List<String> options = learnOptions(null);
        Cli.Result r = learn(options, out);
        if (r.exit() != 0)
            Assertions.fail("typestar: the spec " + spec + " does not exist, and learning it from " + device() + " failed: " + r.describe());
        String summary = summary(out, r, options);
        if (update) {
            System.out.println("typestar: learned " + spec + " from " + device() + ": " + summary + "Review and commit it.");
            return;
        }
        Assertions.fail("typestar: the spec " + spec + " does not exist, so it was learned from " + device() + ": " + summary
                + "Proposed spec: " + proposed + "\nReview it, then accept it (--auto keeps the generated state names, "
                + "or choose them with --name NEW=Name):\n    " + acceptCommand(false)
                + "\nor rerun with TYPESTAR_UPDATE=1 (or -Dtypestar.update=true), which writes " + spec.getFileName() + " itself.\n");
    }

    /** Re-learns once per spec and returns the full report the first time, a pointer after. */
    synchronized String proposal(boolean seeded, long suiteBound) {
        if (proposalReport == null) proposalReport = propose(seeded, suiteBound);
        if (reportPrinted) return proposalPointer;
        reportPrinted = true;
        return proposalReport;
    }

    /** {@code seeded}: with the stored spec ({@code --from}); not when the purpose's callins or callbacks are other than the spec's. */
    private String propose(boolean seeded, long suiteBound) {
        boolean ci = ci();
        boolean update = update();
        Path proposed = proposedPath();
        Path learned = null;
        String how = seeded ? "typestar learn, seeded with the stored spec" : "typestar learn, from scratch";
        try {
            // Learned into a temporary file beside the spec; moved into place atomically when kept.
            Path dir = spec.toAbsolutePath().getParent();
            learned = ci ? Files.createTempFile(".typestar-", ".yaml") : Files.createTempFile(dir, ".typestar-", ".yaml");
            List<String> options = learnOptions(seeded ? null : suiteBound);
            if (seeded) options.addAll(List.of("--from", spec.toString()));
            Cli.Result r = learn(options, learned);
            if (r.exit() != 0) {
                proposalPointer = "Re-learning (" + how + ") failed (see the first failing test).\n";
                return "Re-learning (" + how + ") failed: " + r.describe() + "\n";
            }
            boolean force = !seeded;  // other callins or callbacks: accept refuses without --force
            String accept = acceptCommand(force);
            Cli.Result diff = Cli.run(List.of(cli, "diff", spec.toString(), learned.toString()), Map.of());
            Cli.Result changed = Cli.run(List.of(cli, "diff", spec.toString(), learned.toString(), "--format", "json"), Map.of());
            try {
                for (JsonElement c : JsonParser.parseString(changed.out()).getAsJsonObject().getAsJsonArray("changes"))
                    changes.add(c.getAsJsonObject());
            } catch (RuntimeException e) {
                changes.clear();  // not told: no per-test summary
            }
            String diffText = diff.exit() <= 1 ? indent(diff.out()) : "(no diff: " + diff.describe() + ")\n";
            StringBuilder b = new StringBuilder("Re-learned (" + how + "): " + summary(learned, r, options));
            if (ci) {
                b.append("CI is set, so nothing was written. The proposed spec:\n")
                        .append(indent(Files.readString(learned, StandardCharsets.UTF_8)));
                proposalPointer = "The proposed spec and its diff are printed in full above (first failing test).\n";
            } else if (update) {
                // Update mode takes the proposal as `typestar accept` does (the CLI pairs the states
                // and keeps the stored names; new states keep their generated ones).
                Files.move(learned, proposed, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                learned = null;
                List<String> command = new ArrayList<>(List.of(cli, "accept", spec.toString(), "--auto"));
                if (force) command.add("--force");
                Cli.Result a = Cli.run(command, Map.of());
                if (a.exit() != 0) {
                    b.append("Update mode (TYPESTAR_UPDATE / -Dtypestar.update): `").append(accept)
                            .append("` refused the proposal, so ").append(spec).append(" was not written (the proposal is ")
                            .append(proposed).append("):\n").append(indent(a.err()));
                    proposalPointer = "Update mode: the proposal was not accepted (see the first failing test).\n";
                } else {
                    wroteSpec = true;
                    b.append("Update mode (TYPESTAR_UPDATE / -Dtypestar.update): wrote ").append(spec).append(" (")
                            .append(accept).append(": ").append(a.out().strip()).append(").\n");
                    proposalPointer = "Update mode: wrote " + spec + ".\n";
                }
            } else {
                Files.move(learned, proposed, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                learned = null;
                b.append("Proposed spec: ").append(proposed)
                        .append("\nReview it, then accept it (keeps the stored state names; --auto keeps the generated names of ")
                        .append("new states, or choose them with --name NEW=Name):\n    ").append(accept).append('\n')
                        .append(force ? "  (--force: the proposal has other callins or callbacks than the stored spec)\n" : "")
                        .append("or rerun with TYPESTAR_UPDATE=1 (or -Dtypestar.update=true), which writes ")
                        .append(spec.getFileName()).append(" itself.\n");
                proposalPointer = "Proposed spec: " + proposed + " (its diff is in the first failing test's message above)\n"
                        + "Accept it: " + accept + "\n";
            }
            b.append("Stored -> proposed (typestar diff):\n").append(diffText);
            return b.toString();
        } catch (IOException | RuntimeException e) {
            proposalPointer = "Re-learning failed (see the first failing test).\n";
            return "Re-learning failed: " + e + "\n";
        } finally {
            if (learned != null) {
                try {
                    Files.deleteIfExists(learned);
                } catch (IOException ignored) {
                    // a temporary file
                }
            }
        }
    }

    /**
     * One line per changed transition (the stored spec's names), this test's own marked; or that this
     * test's transition did not change (the GoogleTest plugin's text). Empty without changes.
     */
    synchronized String changeSummary(String state, String input) {
        if (changes.isEmpty()) return "";
        StringBuilder b = new StringBuilder("What changed (stored -> proposed):\n");
        boolean mine = false;
        for (JsonObject c : changes) {
            boolean here = c.get("state").getAsString().equals(state) && c.get("input").getAsString().equals(input);
            mine |= here;
            b.append("    ").append(c.get("state").getAsString()).append(' ').append(c.get("input").getAsString()).append(": ")
                    .append(c.get("before").getAsString()).append("  =>  ").append(c.get("after").getAsString())
                    .append(here ? "   <- this test's transition" : "").append('\n');
        }
        if (!mine)
            b.append("This test's transition (").append(state).append(", ").append(input)
                    .append(") did not change: its words pass through a transition that did.\n");
        return b.toString();
    }

    private static String indent(String text) {
        StringBuilder b = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.isEmpty()) continue;
            b.append("    ").append(line).append('\n');
        }
        return b.toString();
    }
}
