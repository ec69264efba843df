package typestar.junit;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;

/** The reproduce line of a failing {@link TypestarSpec} test: {@code typestar check} through an exec: launcher. */
final class Launcher {
    private Launcher() {}

    /**
     * The reproduce line: {@code typestar check SPEC --device exec:LAUNCHER#SUITE --bound B}, where
     * LAUNCHER (written here, in the temporary directory) runs this test class's factory method in a
     * fresh JVM with this JVM's class path and -D options and serves the purpose ({@link Serve}), as
     * {@code exec:} serves a gtest binary's. Without a known factory method: the test to rerun.
     */
    static String reproduce(TypestarSpec s, String test, long bound) {
        String rerun = "rerun the test " + test + " (" + (s.originClass == null ? "its test class" : s.originClass + "." + s.originMethod + "()") + ")";
        if (s.originClass == null) return "Reproduce: " + rerun + "\n";
        try {
            Path launcher = launcher(s);
            return "Reproduce: typestar check " + shellQuote(s.specPath().toString()) + " --device "
                    + shellQuote("exec:" + launcher + "#" + s.suiteName()) + " --bound " + bound + "\n"
                    + "       (" + launcher + " serves this test class's purpose to the CLI, as exec: serves a gtest binary's)\n"
                    + "       or: " + rerun + "\n";
        } catch (IOException | RuntimeException e) {
            return "Reproduce: " + rerun + " (no launcher for typestar check: " + e.getMessage() + ")\n";
        }
    }

    /** The launcher script of {@link #reproduce}: the same content, the same file. */
    private static Path launcher(TypestarSpec s) throws IOException {
        java.util.LinkedHashSet<String> cp = new java.util.LinkedHashSet<>();
        for (ClassLoader l = Thread.currentThread().getContextClassLoader(); l != null; l = l.getParent())
            if (l instanceof java.net.URLClassLoader u)
                for (java.net.URL url : u.getURLs())
                    if (url.getProtocol().equals("file")) cp.add(Path.of(URI.create(url.toString())).toString());
        for (String e : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator))
            if (!e.isEmpty()) cp.add(Path.of(e).toAbsolutePath().toString());
        StringBuilder options = new StringBuilder();
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
            if (a.startsWith("-D") && !a.startsWith("-Dtypestar.")) options.append(' ').append(shellQuote(a));
        String javaBinary = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String script = "#!/bin/sh\n"
                + "# Serves the learning purpose of " + s.originClass + "." + s.originMethod + "() (JUnit 5) to the typestar CLI\n"
                + "# as an exec: device (typestar check SPEC --device 'exec:THIS#" + s.suiteName() + "'). Written by typestar-junit.\n"
                + "cd " + shellQuote(Path.of("").toAbsolutePath().toString()) + " || exit 127\n"
                + "exec " + shellQuote(javaBinary) + options + " -cp " + shellQuote(String.join(java.io.File.pathSeparator, cp))
                + " typestar.junit.Serve --test-class " + shellQuote(s.originClass) + " --method " + shellQuote(s.originMethod) + " \"$@\"\n";
        String hash;
        try {
            hash = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(script.getBytes(StandardCharsets.UTF_8))).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IOException("no SHA-256 in this JVM", e);
        }
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "typestar-junit-" + System.getProperty("user.name", "user"));
        Files.createDirectories(dir);
        Path file = dir.resolve(TypestarSpec.identifier(s.originClass) + "-" + hash + ".sh");
        if (!Files.exists(file)) {
            Path tmp = Files.createTempFile(dir, ".launcher-", ".sh");
            Files.writeString(tmp, script, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    /** {@code text} quoted for a POSIX shell when it needs it. */
    static String shellQuote(String text) {
        if (!text.isEmpty() && text.matches("[A-Za-z0-9_./:=@%+,-]+")) return text;
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
