package typestar.junit;

import java.util.Map;
import org.junit.jupiter.api.extension.DynamicTestInvocationContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.function.Executable;

/**
 * Publishes each {@link TypestarSpec} test's report entries (JUnit's {@code publishReportEntry}):
 * {@code typestar.spec}, {@code typestar.bound}, {@code typestar.state}, {@code typestar.transition},
 * {@code typestar.test}, {@code typestar.tmax} (ms, the run's) and {@code typestar.device}. Reports show them with the test: the console launcher's XML
 * ({@code --reports-dir}) in the test case's {@code <system-out>}, Surefire's as properties of its
 * listeners, IDEs beside the test. Register it on the test class:
 *
 * <pre>{@code
 * @ExtendWith(TypestarReports.class)
 * class ConnectionSpecTest { ... }
 * }</pre>
 *
 * <p>Dynamic tests cannot be handed JUnit's {@code TestReporter}; this interceptor is how a dynamic
 * test's own entries reach the report (not the factory method's). Tests that are not typestar's run
 * untouched. {@link TypestarXmlReports} reads these entries to write its JUnit-XML files.
 */
public final class TypestarReports implements InvocationInterceptor {
    @Override
    public void interceptDynamicTest(Invocation<Void> invocation, DynamicTestInvocationContext invocationContext,
                                     ExtensionContext extensionContext) throws Throwable {
        if (invocationContext.getExecutable() instanceof Reported r) extensionContext.publishReportEntry(r.entries);
        invocation.proceed();
    }

    /** A typestar test's body and its report entries. */
    static final class Reported implements Executable {
        final Map<String, String> entries;
        private final Executable body;

        Reported(Map<String, String> entries, Executable body) {
            this.entries = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(entries));
            this.body = body;
        }

        @Override
        public void execute() throws Throwable {
            body.execute();
        }
    }
}
