package com.example;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import typestar.junit.TypestarSpec;

/** The committed spec of Connection as JUnit tests: one per transition (Connection.<State>_<callin>). */
class ConnectionSpecTest {
    @TestFactory
    Stream<DynamicTest> connection() {
        return TypestarSpec.of("specs/connection.yaml", new ConnectionPurpose().purpose()).tests();
    }
}
