package typestar.junit;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import typestar.agent.Agent;
import typestar.agent.Main;

/**
 * A JUnit 5 test class serving its purpose to the typestar CLI, as {@code exec:BINARY#SPEC} has a
 * gtest binary serve its own: {@code java -cp CP typestar.junit.Serve --test-class FQCN --method M
 * --typestar_serve=127.0.0.1:0 --typestar_token_file=F [--typestar_serve_spec=SUITE]} calls the
 * test factory method {@code M} of {@code FQCN} (a fresh instance, as JUnit makes one) with the
 * specs' tests captured instead of run, and serves the purpose of the spec named SUITE (its test
 * suite name, or its file's stem; the only one when not given) on HOST:PORT with the bearer token
 * of F, printing {@code typestar: serving NAME at URL} and {@code typestar: ready} (the exec:
 * device's protocol). TypestarSpec writes a launcher script running this for its reproduce line.
 */
public final class Serve {
    private Serve() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        String testClass = null;
        String method = null;
        String serve = null;
        String tokenFile = null;
        String which = null;
        for (int i = 0; i < args.length; ++i) {
            String a = args[i];
            if (a.equals("--test-class") && i + 1 < args.length) testClass = args[++i];
            else if (a.equals("--method") && i + 1 < args.length) method = args[++i];
            else if (a.startsWith("--typestar_serve=")) serve = a.substring("--typestar_serve=".length());
            else if (a.startsWith("--typestar_token_file=")) tokenFile = a.substring("--typestar_token_file=".length());
            else if (a.startsWith("--typestar_serve_spec=")) which = a.substring("--typestar_serve_spec=".length());
            else {
                System.err.println("typestar-junit serve: unexpected argument '" + a + "' (--test-class FQCN --method M "
                        + "--typestar_serve=HOST:PORT --typestar_token_file=F [--typestar_serve_spec=SUITE])");
                return 2;
            }
        }
        if (testClass == null || method == null || serve == null || tokenFile == null) {
            System.err.println("typestar-junit serve: --test-class, --method, --typestar_serve and --typestar_token_file are required");
            return 2;
        }
        int colon = serve.lastIndexOf(':');
        if (colon <= 0) {
            System.err.println("typestar-junit serve: --typestar_serve=" + serve + ": expected HOST:PORT");
            return 2;
        }
        try {
            List<TypestarSpec> specs = capture(testClass, method);
            TypestarSpec chosen = null;
            List<String> names = new ArrayList<>();
            for (TypestarSpec s : specs) {
                names.add(s.suiteName() + " (" + s.specPath() + ")");
                if (which == null || which.isEmpty() ? specs.size() == 1 : which.equals(s.suiteName()) || which.equals(s.stem()))
                    chosen = chosen == null ? s : chosen;
            }
            if (chosen == null) {
                System.err.println("typestar-junit serve: " + testClass + "." + method + "() has "
                        + (specs.isEmpty() ? "no TypestarSpec" : "no spec '" + (which == null ? "" : which) + "' among: "
                                + String.join(", ", names)));
                return 2;
            }
            Agent.Config config = new Agent.Config();
            config.host = serve.substring(0, colon);
            config.port = Integer.parseInt(serve.substring(colon + 1));
            config.token = Main.readTokenFile(Path.of(tokenFile));
            Agent agent = chosen.purpose().agent(config);
            agent.start();
            Runtime.getRuntime().addShutdownHook(new Thread(agent::stop));
            System.out.println("typestar: serving " + chosen.purpose().name() + " at " + agent.url() + " (" + testClass + "."
                    + method + "(), spec " + chosen.specPath() + ")");
            System.out.println("typestar: ready");
            System.out.flush();
            new CountDownLatch(1).await();  // until the CLI ends the process
            return 0;
        } catch (Exception e) {
            System.err.println("typestar-junit serve: " + e);
            return 1;
        }
    }

    /** The TypestarSpecs whose tests() the factory method {@code method} of {@code testClass} asks for. */
    static List<TypestarSpec> capture(String testClass, String method) throws ReflectiveOperationException {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Class<?> c = Class.forName(testClass, true, loader != null ? loader : Serve.class.getClassLoader());
        Method m = c.getDeclaredMethod(method);
        m.setAccessible(true);
        Object instance = null;
        if (!java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
            Constructor<?> k = c.getDeclaredConstructor();
            k.setAccessible(true);
            instance = k.newInstance();
        }
        List<TypestarSpec> out = new ArrayList<>();
        TypestarSpec.CAPTURE.set(out);
        try {
            Object result = m.invoke(instance);
            if (result instanceof java.util.stream.Stream<?> s) s.close();
        } finally {
            TypestarSpec.CAPTURE.remove();
        }
        return out;
    }
}
