package com.example.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PatternLayoutTest {

    @BeforeEach
    void setProperties() {
        System.setProperty("demo.app.name", "billing");
        System.setProperty("demo.db.password", "s3cr3t-Pa55word");
    }

    @AfterEach
    void clearProperties() {
        System.clearProperty("demo.app.name");
        System.clearProperty("demo.db.password");
    }

    @Test
    void lookupsInLoggedDataAreNotResolved() {
        String userName = "${sys:demo.db.password}";
        String line = new PatternLayout("%level %msg").format("WARN", "login failed for user {}", userName);
        assertFalse(line.contains("s3cr3t-Pa55word"), "a lookup in logged data was resolved: " + line);
    }

    @Test
    void resolvesLookupsInThePattern() {
        assertEquals("[billing] INFO started",
                new PatternLayout("[${sys:demo.app.name}] %level %msg").format("INFO", "started"));
    }

    @Test
    void substitutesArgumentsInOrder() {
        assertEquals("INFO copied 3 of 4 files",
                new PatternLayout("%level %msg").format("INFO", "copied {} of {} files", 3, 4));
    }

    @Test
    void keepsSurplusPlaceholders() {
        assertEquals("DEBUG a={} b={}", new PatternLayout("%level %msg").format("DEBUG", "a={} b={}"));
    }

    @Test
    void leavesUnknownLookupsAsWritten() {
        assertEquals("${ctx:requestId} INFO x",
                new PatternLayout("${ctx:requestId} %level %msg").format("INFO", "x"));
    }
}
