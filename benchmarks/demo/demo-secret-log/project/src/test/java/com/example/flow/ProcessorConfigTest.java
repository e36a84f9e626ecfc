package com.example.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProcessorConfigTest {

    private static final String PASSWORD = "s3cr3t-Pa55word";
    private static final Logger LOG = Logger.getLogger(ProcessorConfig.class.getName());

    private final List<LogRecord> records = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLog() {
        capture.setLevel(Level.ALL);
        LOG.setLevel(Level.ALL);
        LOG.setUseParentHandlers(false);
        LOG.addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        LOG.removeHandler(capture);
        LOG.setUseParentHandlers(true);
        LOG.setLevel(null);
    }

    private List<String> logged() {
        return records.stream().map(LogRecord::getMessage).toList();
    }

    private static ProcessorConfig sftpProcessor() {
        ProcessorConfig config = new ProcessorConfig("GetSFTP-1", Set.of("password"));
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("hostname", "files.example.org");
        properties.put("username", "etl");
        properties.put("password", PASSWORD);
        config.configure(properties);
        return config;
    }

    @Test
    void configuringDoesNotLogSensitiveValues() {
        sftpProcessor();
        assertFalse(logged().stream().anyMatch(m -> m.contains(PASSWORD)), "password in the log: " + logged());
    }

    @Test
    void fingerprintMismatchDoesNotLogSensitiveValues() {
        ProcessorConfig config = sftpProcessor();
        records.clear();
        assertFalse(config.matchesCluster("GetSFTP-1|hostname=files.example.org|password=other|username=etl"));
        assertFalse(logged().stream().anyMatch(m -> m.contains(PASSWORD)), "password in the log: " + logged());
    }

    @Test
    void configuringLogsWhichPropertiesChanged() {
        sftpProcessor();
        List<String> messages = logged();
        assertTrue(messages.contains("processor GetSFTP-1: property 'hostname' updated"), messages.toString());
        assertTrue(messages.contains("processor GetSFTP-1: property 'password' updated"), messages.toString());
    }

    @Test
    void fingerprintListsPropertiesInNameOrder() {
        assertEquals("GetSFTP-1|hostname=files.example.org|password=" + PASSWORD + "|username=etl",
                sftpProcessor().fingerprint());
    }

    @Test
    void equalFingerprintsMatch() {
        ProcessorConfig config = sftpProcessor();
        assertTrue(config.matchesCluster(config.fingerprint()));
    }

    @Test
    void mismatchIsReportedAsWarning() {
        ProcessorConfig config = sftpProcessor();
        records.clear();
        assertFalse(config.matchesCluster("GetSFTP-1|hostname=elsewhere"));
        assertTrue(records.stream().anyMatch(r -> r.getLevel() == Level.WARNING
                && r.getMessage().contains("GetSFTP-1 differs from the cluster flow")), logged().toString());
    }

    @Test
    void describeMasksSensitiveValues() {
        assertEquals("processor GetSFTP-1\n  hostname = files.example.org\n  password = ********\n  username = etl",
                sftpProcessor().describe());
    }
}
