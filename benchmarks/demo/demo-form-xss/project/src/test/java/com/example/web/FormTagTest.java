package com.example.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class FormTagTest {

    private static final Pattern ATTRIBUTE = Pattern.compile("\\s([a-zA-Z][a-zA-Z0-9-]*)=\"[^\"]*\"");

    private static List<String> attributeNames(String tag) {
        List<String> names = new ArrayList<>();
        Matcher m = ATTRIBUTE.matcher(tag);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    void requestUriCannotBreakOutOfTheActionAttribute() {
        String html = new FormTag("/search\" onfocus=\"alert(1)\" autofocus=\"\"><script>alert(2)</script>").render();
        assertFalse(html.contains("<script"), html);
        assertEquals(List.of("method", "action"), attributeNames(html), html);
        assertEquals(1, html.chars().filter(c -> c == '>').count(), html);
    }

    @Test
    void defaultActionIsTheRequestUri() {
        assertEquals("<form method=\"post\" action=\"/orders/new\">", new FormTag("/orders/new").render());
    }

    @Test
    void explicitActionIsEscaped() {
        String html = new FormTag("/ignored").action("/search?q=a&b=\"c\"").render();
        assertEquals("<form method=\"post\" action=\"/search?q=a&amp;b=&quot;c&quot;\">", html);
    }

    @Test
    void methodIsLowerCased() {
        assertEquals("<form method=\"get\" action=\"/find\">", new FormTag("/find").method("GET").render());
    }

    @Test
    void extraAttributesFollowInOrder() {
        String html = new FormTag("/login").attribute("id", "login").attribute("class", "wide <b>").render();
        assertEquals("<form method=\"post\" action=\"/login\" id=\"login\" class=\"wide &lt;b&gt;\">", html);
    }

    @Test
    void rejectsInvalidAttributeName() {
        assertThrows(IllegalArgumentException.class, () -> new FormTag("/").attribute("on click", "x"));
    }
}
