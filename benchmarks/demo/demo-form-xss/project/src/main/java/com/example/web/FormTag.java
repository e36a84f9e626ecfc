package com.example.web;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Renders the opening tag of an HTML form, like a JSP form tag. When the page does not name an
 * action, the form posts back to the URI of the request that rendered it.
 */
public final class FormTag {

    private final String requestUri;
    private String action;
    private String method = "post";
    private final Map<String, String> attributes = new LinkedHashMap<>();

    /** @param requestUri the URI of the current request, as the client sent it */
    public FormTag(String requestUri) {
        this.requestUri = requestUri;
    }

    public FormTag action(String action) {
        this.action = action;
        return this;
    }

    public FormTag method(String method) {
        this.method = method.toLowerCase(Locale.ROOT);
        return this;
    }

    /** Adds a further attribute, such as id or class, written after method and action. */
    public FormTag attribute(String name, String value) {
        if (!name.matches("[a-zA-Z][a-zA-Z0-9-]*")) {
            throw new IllegalArgumentException("invalid attribute name: " + name);
        }
        attributes.put(name, value);
        return this;
    }

    public String render() {
        StringBuilder html = new StringBuilder("<form");
        appendAttribute(html, "method", method);
        if (action != null) {
            appendAttribute(html, "action", action);
        } else {
            html.append(" action=\"").append(requestUri).append('"');
        }
        for (Map.Entry<String, String> attribute : attributes.entrySet()) {
            appendAttribute(html, attribute.getKey(), attribute.getValue());
        }
        return html.append('>').toString();
    }

    private static void appendAttribute(StringBuilder html, String name, String value) {
        html.append(' ').append(name).append("=\"").append(HtmlEscaper.escape(value)).append('"');
    }
}
