package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** {@link BindAddress}: Rust {@code SocketAddr::from_str} acceptance, without name lookups. */
class BindAddressTest {

  @Test
  void acceptsNumericIpv4AndKeepsTheText() throws Exception {
    BindAddress b = BindAddress.tryParse("10.1.2.3:05561").orElseThrow();
    assertThat(b.text()).isEqualTo("10.1.2.3:05561");
    assertThat(b.port()).isEqualTo(5561);
    assertThat(b.address()).isEqualTo(InetAddress.getByAddress(new byte[] {10, 1, 2, 3}));
    assertThat(b.socketAddress().getPort()).isEqualTo(5561);
    assertThat(BindAddress.tryParse("255.255.255.255:65535")).isPresent();
    assertThat(BindAddress.tryParse("127.0.0.1:0").orElseThrow().port()).isZero();
  }

  @Test
  void rejectsNonNumericIpv4Forms() {
    for (String bad : new String[] {"localhost:5561", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
        "127.0.0.1:+1", "127.0.0.1:-1", "256.0.0.1:1", "01.2.3.4:1", "1.2.3:1", "1.2.3.4.5:1", "1..3.4:1",
        " 127.0.0.1:1", "127.0.0.1:1 ", "1.2.3.4:5:6", "", ":1", "1.2.3.1234:1", "１.2.3.4:1"}) {
      assertThat(BindAddress.tryParse(bad)).as(bad).isEmpty();
    }
    assertThat(BindAddress.tryParse(null)).isEmpty();
  }

  @Test
  void acceptsBracketedIpv6Forms() {
    assertThat(BindAddress.tryParse("[::]:1").orElseThrow().address().isAnyLocalAddress()).isTrue();
    BindAddress full = BindAddress.tryParse("[2001:db8:0:0:0:0:0:1]:443").orElseThrow();
    assertThat(full.address()).isEqualTo(BindAddress.tryParse("[2001:DB8::1]:443").orElseThrow().address());
    BindAddress mapped = BindAddress.tryParse("[::ffff:1.2.3.4]:80").orElseThrow();
    assertThat(mapped.address()).isInstanceOf(Inet6Address.class);
    assertThat(mapped.address().getAddress()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 1, 2, 3, 4);
    assertThat(BindAddress.tryParse("[1:2:3:4:5:6:7::]:1")).isPresent();
    assertThat(BindAddress.tryParse("[::2:3:4:5:6:7:8]:1")).isPresent();
    assertThat(BindAddress.tryParse("[1:2:3:4:5:6:1.2.3.4]:1")).isPresent();
  }

  @Test
  void rejectsMalformedIpv6Forms() {
    for (String bad : new String[] {"::1:5561", "[::1]", "[::1]5561", "[::1]:", "[::1:5561", "[:::1]:1",
        "[1::2::3]:1", "[1:2:3:4:5:6:7:8:9]:1", "[1:2:3:4:5:6:7]:1", "[12345::]:1", "[g::]:1",
        "[1:2:3:4:5:6:7::8]:1", "[1:2:3:4:5:6:7:1.2.3.4]:1", "[1.2.3.4::]:1", "[::1]:65536", "[:1::]:1",
        "[fe80::1%eth0]:1", "[localhost]:1"}) {
      assertThat(BindAddress.tryParse(bad)).as(bad).isEmpty();
    }
  }
}
