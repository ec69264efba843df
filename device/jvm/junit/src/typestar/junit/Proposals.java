package typestar.junit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import typestar.agent.Agent;

/**
 * How a {@link TypestarSpec} reaches the session (docs/runners.md): its purpose served to the typestar
 * CLI on 127.0.0.1 for the occasion, and the options that hand the CLI every decision after a failure
 * or for a missing spec ({@code --propose}, {@code --update}, {@code --ci}, {@code --learner},
 * {@code --device-label}): the proposal, its file, the accept command that works, what changed, update
 * mode and the first run are the session's, as in the gtest plugin; this class only prints them.
 * One per planned run: it reads the spec's resolved settings when made.
 */
final class Proposals {
    private final TypestarSpec owner;
    private final Path spec;
    private final Served purpose;
    private final String cli;

    Proposals(TypestarSpec owner) {
        this.owner = owner;
        this.spec = owner.specPath();
        this.purpose = owner.purpose();
        this.cli = owner.cli;
    }

    /** What learned specs record as their device: stable across runs (the purpose, run in this JVM by JUnit). */
    String provenanceDevice() {
        return "junit in-process " + purpose.name();
    }

    /**
     * The options of {@code typestar check --format json} that give the CLI the decisions after a
     * failure: always propose; update mode and CI as set ({@code --ci} beats {@code --update} in the
     * CLI); the learner; the provenance device.
     */
    List<String> decisionOptions() {
        List<String> out = new ArrayList<>(List.of("--propose", "--device-label", provenanceDevice()));
        if (TypestarSpec.update()) out.add("--update");
        if (TypestarSpec.ci()) out.add("--ci");
        if (owner.learner != null) out.addAll(List.of("--learner", owner.learner));
        return out;
    }

    /**
     * {@code typestar COMMAND --device URL ARGS} against the purpose served for the occasion (an
     * {@link Agent} on 127.0.0.1, any port, a fresh token passed as TYPESTAR_DEVICE_TOKEN, stopped
     * after); {@code url[0]} is the URL it was served on.
     */
    Cli.Result serve(String subcommand, List<String> args, String[] url) throws IOException {
        Agent.Config config = new Agent.Config();
        config.port = 0;
        byte[] t = new byte[16];
        new SecureRandom().nextBytes(t);
        config.token = HexFormat.of().formatHex(t);
        Agent agent = purpose.agent(config);
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

    /**
     * No spec yet: the CLI's first run ({@code typestar check --format json --propose} on the missing
     * file: learned at the bound asked, written for review, as the spec in update mode, nothing on CI).
     * Passes when the CLI wrote the spec; fails with the CLI's summary otherwise.
     */
    void learnMissing() throws IOException {
        List<String> args = new ArrayList<>(List.of(spec.toString(), "--format", "json"));
        args.addAll(decisionOptions());
        if (owner.bound != null) args.addAll(List.of("--bound", owner.bound, "--bound-from", owner.boundFrom));  // auto: learned raising B
        if (owner.tmax != null) args.addAll(List.of("--tmax", String.valueOf(owner.tmax)));  // recorded in the learned spec
        if (owner.tmin != null) args.addAll(List.of("--tmin", String.valueOf(owner.tmin)));
        Cli.Result r = serve("check", args, new String[1]);
        JsonObject j;
        try {
            j = JsonParser.parseString(r.out()).getAsJsonObject();
        } catch (RuntimeException e) {
            Assertions.fail("typestar: the spec " + spec + " does not exist, and learning it from " + owner.device()
                    + " failed: " + r.describe());
            return;
        }
        // The summary is the session's (with who asked for the bound, --bound-from, and what to do).
        String summary = j.get("summary").getAsString();
        if (j.get("verdict").getAsString().equals("pass")) {
            System.out.print("typestar: " + summary);
            return;
        }
        Assertions.fail("typestar: " + summary);
    }
}
