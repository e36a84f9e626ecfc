package com.example.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigParserTest {

    private final ConfigParser parser = new ConfigParser();

    private static InputStream xml(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void doesNotExpandExternalEntities(@TempDir Path dir) throws Exception {
        Path secret = dir.resolve("secret.txt");
        Files.writeString(secret, "TOP-SECRET-4711");
        String document = "<?xml version=\"1.0\"?>\n"
                + "<!DOCTYPE config [<!ENTITY leak SYSTEM \"" + secret.toUri() + "\">]>\n"
                + "<config><entry key=\"motd\">&leak;</entry></config>";

        Map<String, String> settings;
        try {
            settings = parser.parse(xml(document));
        } catch (ConfigException rejected) {
            return; // refusing the document is a fine answer
        }
        assertFalse(settings.values().stream().anyMatch(v -> v.contains("TOP-SECRET-4711")),
                "the parser resolved an external entity and read a local file: " + settings);
    }

    @Test
    void readsEntriesInDocumentOrder() throws Exception {
        Map<String, String> settings = parser.parse(xml(
                "<config><entry key=\"url\">https://example.org</entry><entry key=\"retries\">3</entry></config>"));
        assertEquals(List.of("url", "retries"), List.copyOf(settings.keySet()));
        assertEquals("https://example.org", settings.get("url"));
        assertEquals("3", settings.get("retries"));
    }

    @Test
    void trimsValues() throws Exception {
        Map<String, String> settings = parser.parse(xml("<config>\n  <entry key=\"name\">\n    demo\n  </entry>\n</config>"));
        assertEquals("demo", settings.get("name"));
    }

    @Test
    void expandsPredefinedEntities() throws Exception {
        Map<String, String> settings = parser.parse(xml("<config><entry key=\"q\">a &lt; b &amp;&amp; c</entry></config>"));
        assertEquals("a < b && c", settings.get("q"));
    }

    @Test
    void rejectsWrongRootElement() {
        ConfigException e = assertThrows(ConfigException.class, () -> parser.parse(xml("<settings/>")));
        assertTrue(e.getMessage().contains("<settings>"), e.getMessage());
    }

    @Test
    void rejectsEntryWithoutKey() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parser.parse(xml("<config><entry key=\"a\">1</entry><entry>2</entry></config>")));
        assertTrue(e.getMessage().contains("entry 2"), e.getMessage());
    }

    @Test
    void malformedDocumentIsConfigException() {
        assertThrows(ConfigException.class, () -> parser.parse(xml("<config><entry key=\"a\">1</config>")));
    }
}
