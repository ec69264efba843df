package typestar.junit;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Writes one JUnit-XML file per spec and test class, {@code TEST-typestar-<Spec>-<TestClass>.xml}
 * (the Ant schema that Jenkins, GitLab and GitHub read), naming each test by its transition:
 * {@code <testcase name="Open_send" classname="com_example_Connection.Open">}. The test class is in
 * the name so that two classes that check one spec (against two devices, or in two forked JVMs)
 * never overwrite each other's report: a red one is never replaced by a green one. JUnit's own
 * legacy XML (the console launcher's {@code --reports-dir}, Surefire 2.22) names dynamic tests by
 * index ({@code connection()[2][3]}).
 *
 * <p>Active when the configuration parameter or system property {@code typestar.reports.dir} names
 * a directory (the console launcher: {@code --config typestar.reports.dir=DIR}; Maven:
 * {@code -Dtypestar.reports.dir=DIR}); registered with JUnit's launcher through
 * {@code META-INF/services} in typestar-junit.jar, so nothing else is set up. It reports the tests
 * whose report entries {@link TypestarReports} publishes (the test class needs
 * {@code @ExtendWith(TypestarReports.class)}); other tests are left to JUnit's own reports.
 *
 * <p>Per spec: {@code <properties>} spec, bound, tmax and device; a failed test's {@code <failure>}
 * (an assertion) or {@code <error>} (anything else) with the first line of the message as its
 * {@code message} and the whole text as its body; the tests that were not tested (unknown
 * transitions, inputs the learning purpose does not explore: JUnit's aborted tests) as ONE skipped
 * test case {@code not_tested} listing them. Tests about the whole spec ({@code <Spec>.learn},
 * {@code .load}, {@code .purpose}, {@code .settings}) have the spec as their class name. Test
 * cases are in the plan's order whatever order they ran in (parallel mode); files are written
 * atomically and are byte for byte the same for the same results, but for the {@code time}
 * attributes.
 */
public final class TypestarXmlReports implements TestExecutionListener {
    /** The configuration parameter (or system property) naming the directory the files are written into. */
    public static final String DIR_PARAMETER = "typestar.reports.dir";

    private Path dir;  // null: inactive
    private final Map<String, Map<String, String>> entries = new HashMap<>();  // unique id -> typestar entries
    private final Map<String, Long> started = new HashMap<>();
    private final List<Finished> finished = new ArrayList<>();

    /** A finished typestar test: its entries, result and duration. */
    private record Finished(UniqueId id, Map<String, String> entries, TestExecutionResult result, long nanos) {
        /** The innermost test class of the test's id (Jupiter's {@code class} or {@code nested-class} segment). */
        String testClass() {
            String found = "";
            for (UniqueId.Segment segment : id.getSegments())
                if (segment.getType().equals("class")) found = segment.getValue();
                else if (segment.getType().equals("nested-class")) found = found + "$" + segment.getValue();
            return found;
        }
    }

    /** Public with no arguments, for {@link java.util.ServiceLoader}. */
    public TypestarXmlReports() {}

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        Optional<String> value;
        try {
            value = testPlan.getConfigurationParameters().get(DIR_PARAMETER);
        } catch (NoSuchMethodError e) {  // a JUnit Platform before 1.8: the system property only
            value = Optional.ofNullable(System.getProperty(DIR_PARAMETER));
        }
        dir = value.filter(v -> !v.isBlank()).map(v -> Paths.get(v.strip())).orElse(null);
    }

    @Override
    public synchronized void executionStarted(TestIdentifier test) {
        if (dir != null && test.isTest()) started.put(test.getUniqueId(), System.nanoTime());
    }

    @Override
    public synchronized void reportingEntryPublished(TestIdentifier test, ReportEntry entry) {
        if (dir == null || !entry.getKeyValuePairs().containsKey("typestar.test")) return;
        entries.computeIfAbsent(test.getUniqueId(), k -> new TreeMap<>()).putAll(entry.getKeyValuePairs());
    }

    @Override
    public synchronized void executionSkipped(TestIdentifier test, String reason) {
        // Disabled before running: no report entries, so not a typestar test this listener knows.
    }

    @Override
    public synchronized void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (dir == null) return;
        Map<String, String> mine = entries.remove(test.getUniqueId());
        Long start = started.remove(test.getUniqueId());
        if (mine == null) return;
        long nanos = start == null ? 0 : System.nanoTime() - start;
        finished.add(new Finished(UniqueId.parse(test.getUniqueId()), mine, result, nanos));
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan testPlan) {
        if (dir == null) return;
        // One file per spec file and test class, in the order of the specs' paths, then the classes;
        // a file name taken twice (two spec files of one name) gets -2, -3.
        TreeMap<List<String>, List<Finished>> bySpec = new TreeMap<>((a, b) -> {
            int c = a.get(0).compareTo(b.get(0));
            return c != 0 ? c : a.get(1).compareTo(b.get(1));
        });
        for (Finished f : finished)
            bySpec.computeIfAbsent(List.of(f.entries().get("typestar.spec"), f.testClass()), k -> new ArrayList<>()).add(f);
        Map<String, Integer> taken = new HashMap<>();
        try {
            Files.createDirectories(dir);
            for (Map.Entry<List<String>, List<Finished>> group : bySpec.entrySet()) {
                List<Finished> tests = group.getValue();
                tests.sort((a, b) -> compare(a.id(), b.id()));
                String suite = suiteName(tests.get(0).entries());
                String testClass = group.getKey().get(1);
                String name = suite + (testClass.isEmpty() ? "" : "-" + fileSafe(testClass));
                int n = taken.merge(name, 1, Integer::sum);
                String file = "TEST-typestar-" + name + (n > 1 ? "-" + n : "") + ".xml";
                write(dir.resolve(file), suite, tests);
            }
        } catch (IOException | XMLStreamException e) {
            System.err.println("typestar: cannot write the JUnit XML reports into " + dir + ": " + e.getMessage());
        } finally {
            finished.clear();
            entries.clear();
            started.clear();
        }
    }

    /** A test class's name in a file name: letters, digits, '.', '_', '-' kept; others (a nested class's '$') '_'. */
    static String fileSafe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** The suite's name: the full test name without its transition ({@code com_example_Connection}). */
    static String suiteName(Map<String, String> e) {
        String test = e.get("typestar.test");
        String transition = e.get("typestar.transition");
        if (transition != null && test.endsWith("." + transition))
            return test.substring(0, test.length() - transition.length() - 1);
        int dot = test.lastIndexOf('.');
        return dot < 0 ? test : test.substring(0, dot);
    }

    /** Plan order: unique ids segment by segment, dynamic indices ({@code #3}) as numbers. */
    static int compare(UniqueId a, UniqueId b) {
        List<UniqueId.Segment> x = a.getSegments(), y = b.getSegments();
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            int c = x.get(i).getType().compareTo(y.get(i).getType());
            if (c != 0) return c;
            String u = x.get(i).getValue(), v = y.get(i).getValue();
            if (u.matches("#\\d{1,9}") && v.matches("#\\d{1,9}"))
                c = Integer.compare(Integer.parseInt(u.substring(1)), Integer.parseInt(v.substring(1)));
            else
                c = u.compareTo(v);
            if (c != 0) return c;
        }
        return Integer.compare(x.size(), y.size());
    }

    private static void write(Path file, String suite, List<Finished> tests) throws IOException, XMLStreamException {
        List<Finished> notTested = new ArrayList<>();
        int failures = 0, errors = 0;
        long nanos = 0;
        for (Finished f : tests) {
            nanos += f.nanos();
            switch (f.result().getStatus()) {
                case ABORTED -> notTested.add(f);
                case FAILED -> {
                    if (isAssertion(f.result())) failures++;
                    else errors++;
                }
                default -> {}
            }
        }
        int count = tests.size() - notTested.size() + (notTested.isEmpty() ? 0 : 1);
        Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                XMLStreamWriter x = XMLOutputFactory.newFactory().createXMLStreamWriter(out);
                x.writeStartDocument("UTF-8", "1.0");
                x.writeCharacters("\n");
                x.writeStartElement("testsuite");
                x.writeAttribute("name", clean(suite));
                x.writeAttribute("tests", String.valueOf(count));
                x.writeAttribute("skipped", notTested.isEmpty() ? "0" : "1");
                x.writeAttribute("failures", String.valueOf(failures));
                x.writeAttribute("errors", String.valueOf(errors));
                x.writeAttribute("time", seconds(nanos));
                x.writeCharacters("\n  ");
                properties(x, tests.get(0).entries());
                for (Finished f : tests)
                    if (f.result().getStatus() != TestExecutionResult.Status.ABORTED) testcase(x, suite, f);
                if (!notTested.isEmpty()) notTested(x, suite, notTested);
                x.writeCharacters("\n");
                x.writeEndElement();
                x.writeCharacters("\n");
                x.writeEndDocument();
                x.close();
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void properties(XMLStreamWriter x, Map<String, String> e) throws XMLStreamException {
        x.writeStartElement("properties");
        for (String key : List.of("spec", "bound", "tmax", "device")) {
            String value = e.get("typestar." + key);
            if (value == null) continue;
            x.writeCharacters("\n    ");
            x.writeEmptyElement("property");
            x.writeAttribute("name", key);
            x.writeAttribute("value", clean(key.equals("tmax") ? value + " ms" : value));
        }
        x.writeCharacters("\n  ");
        x.writeEndElement();
    }

    private static void testcase(XMLStreamWriter x, String suite, Finished f) throws XMLStreamException {
        Map<String, String> e = f.entries();
        String state = e.get("typestar.state");
        String transition = e.get("typestar.transition");
        String name = transition != null ? transition : e.get("typestar.test").substring(Math.min(suite.length() + 1, e.get("typestar.test").length()));
        x.writeCharacters("\n  ");
        boolean failed = f.result().getStatus() == TestExecutionResult.Status.FAILED;
        if (failed) x.writeStartElement("testcase");
        else x.writeEmptyElement("testcase");
        x.writeAttribute("name", clean(name));
        x.writeAttribute("classname", clean(state != null ? suite + "." + state : suite));
        x.writeAttribute("time", seconds(f.nanos()));
        if (!failed) return;
        Throwable t = f.result().getThrowable().orElse(null);
        String message = t == null || t.getMessage() == null ? "" : t.getMessage();
        x.writeCharacters("\n    ");
        x.writeStartElement(isAssertion(f.result()) ? "failure" : "error");
        x.writeAttribute("message", clean(firstLine(message)));
        x.writeAttribute("type", t == null ? "" : t.getClass().getName());
        // An assertion's body is typestar's message (trace, diff, reproduce line); anything else's, its stack trace.
        x.writeCharacters(clean(isAssertion(f.result()) || t == null ? message : stackTrace(t)));
        x.writeEndElement();
        x.writeCharacters("\n  ");
        x.writeEndElement();
    }

    /** The spec's tests that were not tested, as one skipped test case listing them. */
    private static void notTested(XMLStreamWriter x, String suite, List<Finished> tests) throws XMLStreamException {
        List<String> lines = new ArrayList<>();
        List<String> labels = new ArrayList<>();  // a transition's name, or a test about the spec's first line
        for (Finished f : tests) {
            String why = f.result().getThrowable().map(Throwable::getMessage).orElse("");
            why = why == null ? "" : why.strip();
            String transition = f.entries().get("typestar.transition");
            lines.add((transition != null ? transition + ": " : "") + why);
            labels.add(transition != null ? transition : firstLine(why));
        }
        String message = tests.size() == 1 ? firstLine(lines.get(0)) : "not tested: " + String.join("; ", labels);
        long nanos = tests.stream().mapToLong(Finished::nanos).sum();
        x.writeCharacters("\n  ");
        x.writeStartElement("testcase");
        x.writeAttribute("name", "not_tested");
        x.writeAttribute("classname", clean(suite));
        x.writeAttribute("time", seconds(nanos));
        x.writeCharacters("\n    ");
        x.writeStartElement("skipped");
        x.writeAttribute("message", clean(message));
        x.writeCharacters(clean(String.join("\n", lines)));
        x.writeEndElement();
        x.writeCharacters("\n  ");
        x.writeEndElement();
    }

    private static boolean isAssertion(TestExecutionResult r) {
        return r.getThrowable().map(t -> t instanceof AssertionError).orElse(true);
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }

    private static String stackTrace(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    private static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e9);
    }

    /** {@code s} without the characters XML 1.0 cannot hold (control characters become U+FFFD). */
    static String clean(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
                    || (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
                    || (Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)));
            if (ok && b == null) continue;
            if (b == null) b = new StringBuilder(s.substring(0, i));
            b.append(ok ? c : '\uFFFD');
        }
        return b == null ? s : b.toString();
    }
}
