package com.example.config;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Reads application settings from an XML document of the form
 * {@code <config><entry key="name">value</entry>...</config>}.
 */
public final class ConfigParser {

    /** Parses a settings document and returns its entries in document order. */
    public Map<String, String> parse(InputStream xml) throws ConfigException {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            DocumentBuilder builder = factory.newDocumentBuilder();
            Document document = builder.parse(xml);
            Element root = document.getDocumentElement();
            if (!"config".equals(root.getLocalName())) {
                throw new ConfigException("root element must be <config>, found <" + root.getLocalName() + ">");
            }
            Map<String, String> settings = new LinkedHashMap<>();
            NodeList entries = root.getElementsByTagName("entry");
            for (int i = 0; i < entries.getLength(); i++) {
                Element entry = (Element) entries.item(i);
                String key = entry.getAttribute("key");
                if (key.isEmpty()) {
                    throw new ConfigException("entry " + (i + 1) + " has no key");
                }
                settings.put(key, entry.getTextContent().trim());
            }
            return settings;
        } catch (ParserConfigurationException | SAXException | IOException e) {
            throw new ConfigException("cannot read configuration: " + e.getMessage(), e);
        }
    }
}
