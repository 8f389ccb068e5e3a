package dev.kvrelay.api.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonWriterTest {

  @Test
  void writesCompactlyInMemberOrder() {
    JsonObject o = JsonObject.builder()
        .put("type", "Endpoint")
        .put("instance_id", JsonNumber.ofUnsigned(-1L))
        .put("flags", JsonArray.of(JsonBoolean.TRUE, JsonNull.INSTANCE, new JsonNumber("1.5e-3")))
        .put("empty", JsonObject.of())
        .build();
    assertThat(Json.write(o))
        .isEqualTo("{\"type\":\"Endpoint\",\"instance_id\":18446744073709551615,\"flags\":[true,null,1.5e-3],\"empty\":{}}");
  }

  @Test
  void escapesQuotesBackslashesAndControlCharactersOnly() {
    String s = "q\" b\\ n\n r\r t\t bs\b ff\f nul\u0000 us\u001f del\u007f é \uD83D\uDE00 /";
    assertThat(Json.write(new JsonString(s)))
        .isEqualTo("\"q\\\" b\\\\ n\\n r\\r t\\t bs\\b ff\\f nul\\u0000 us\\u001f del\u007f é \uD83D\uDE00 /\"");
    assertThat(Json.writeUtf8(new JsonString("é"))).isEqualTo("\"é\"".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void objectsEqualRegardlessOfMemberOrderButKeepTheirOwnOrder() throws Exception {
    JsonValue a = Json.parse("{\"x\":1,\"y\":2}");
    JsonValue b = Json.parse("{\"y\":2,\"x\":1}");
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(Json.write(b)).isEqualTo("{\"y\":2,\"x\":1}");
  }

  @Test
  void valuesRejectUnpairedSurrogatesAndBuilderRejectsDuplicates() {
    assertThatThrownBy(() -> new JsonString("a\uD800")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JsonObject.builder().put("a", 1).put("a", 2)).isInstanceOf(IllegalArgumentException.class);
    JsonObject o = JsonObject.builder().put("a", 1).put("b", 2).build().with("a", JsonBoolean.FALSE);
    assertThat(Json.write(o)).isEqualTo("{\"a\":false,\"b\":2}");
    assertThat(JsonArray.ofStrings(List.of("a", "b")).toJson()).isEqualTo("[\"a\",\"b\"]");
  }
}
