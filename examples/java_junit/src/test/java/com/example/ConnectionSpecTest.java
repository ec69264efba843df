package com.example;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import typestar.junit.TypestarReports;
import typestar.junit.TypestarSpec;

/**
 * The committed spec of Connection as JUnit tests: one per transition, nested per state (Open >
 * Open_send); each test's report entries carry the spec, the bound and the transition.
 */
@ExtendWith(TypestarReports.class)
class ConnectionSpecTest {
    @TestFactory
    Stream<DynamicNode> connection() {
        return TypestarSpec.of("specs/connection.yaml", new ConnectionPurpose().purpose()).byState();
    }
}
