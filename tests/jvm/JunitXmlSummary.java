import java.io.File;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Parses a JUnit-XML file (it must be well-formed) and prints one line per element the CI servers
 * read: the suite's counts, its properties, and each test case as "classname name status: message"
 * (java JunitXmlSummary.java FILE; the java_junit_xml_reports test asserts on its output).
 */
public class JunitXmlSummary {
    public static void main(String[] args) throws Exception {
        Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new File(args[0])).getDocumentElement();
        System.out.println(suite.getTagName() + " " + suite.getAttribute("name") + " tests=" + suite.getAttribute("tests")
                + " skipped=" + suite.getAttribute("skipped") + " failures=" + suite.getAttribute("failures")
                + " errors=" + suite.getAttribute("errors"));
        NodeList props = suite.getElementsByTagName("property");
        for (int i = 0; i < props.getLength(); i++) {
            Element p = (Element) props.item(i);
            System.out.println("property " + p.getAttribute("name") + "=" + p.getAttribute("value"));
        }
        NodeList cases = suite.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element c = (Element) cases.item(i);
            String status = "passed";
            String message = "";
            for (Node n = c.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e) {
                    status = e.getTagName();
                    message = ": " + e.getAttribute("message");
                }
            }
            System.out.println("testcase " + c.getAttribute("classname") + " " + c.getAttribute("name") + " " + status + message);
        }
    }
}
