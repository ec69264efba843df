package typestar.junit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Runs the typestar CLI. */
final class Cli {
    record Result(int exit, String out, String err, String command) {
        String describe() {
            String e = err.strip();
            return command + " exited with " + exit + (e.isEmpty() ? "" : ":\n" + e);
        }
    }

    static Result run(List<String> command, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("TYPESTAR_DEVICE_TOKEN"));
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        String shown = String.join(" ", command);
        try {
            Process p = pb.start();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
            String out = readAll(p.getInputStream());
            int exit = p.waitFor();
            return new Result(exit, out, err.join(), shown);
        } catch (IOException e) {
            return new Result(127, "", "cannot run " + command.get(0) + ": " + e.getMessage()
                    + " (install typestar, or set -Dtypestar.cli=PATH or TYPESTAR_CLI)", shown);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(130, "", "interrupted", shown);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
