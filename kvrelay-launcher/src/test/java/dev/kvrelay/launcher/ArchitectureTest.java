package dev.kvrelay.launcher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: confined to the JUnit thread. The architecture rules of the product modules, checked on their
 * main classes (tests and test-jars excluded): the API fence of {@code dev.kvrelay.engine} and
 * {@code dev.kvrelay.grpc} as their {@code module-info} declares it (nothing internal reachable from an exported
 * public signature, other modules use only exported engine types), the direction between modules and between the
 * engine's producer and consumer sides, and no package cycles.
 *
 * <p>The exported packages are read from the compiled {@code module-info.class} of each module on the class path,
 * so the rules follow the descriptors rather than a copy of them. The benchmarks module is not a product: it
 * measures engine internals on purpose and is not checked.
 */
class ArchitectureTest {
  private static final String ENGINE = "dev.kvrelay.engine";
  private static final String GRPC = "dev.kvrelay.grpc";
  private static final String LAUNCHER = "dev.kvrelay.launcher";

  /** The embedder-facing engine types: adding one is an API decision, so it is made here on purpose. */
  private static final Set<String> ENGINE_API = Set.of(
      // dev.kvrelay.engine: the relay
      "BindAddress", "RelayConfigException", "RelayConfigKey", "RelayConfigViolation", "RelayEngine",
      "RelayEngineConfig", "RelayEngineException",
      // dev.kvrelay.engine.consumer: the router side
      "consumer.BackoffPolicy", "consumer.CatalogError",
      "consumer.ConsumerStats", "consumer.GlobalViewAnswer", "consumer.GlobalViewMatch", "consumer.LoadSnapshot",
      "consumer.PoolLoad", "consumer.ReadinessSnapshot", "consumer.RelayConsumer",
      "consumer.ReplicaState", "consumer.ReplicaStatus", "consumer.ReplicaTermination",
      // dev.kvrelay.engine.stats: what stats() returns, its parts nested (PoolStats.Actor, RelayEngineStats.Hubs, ...)
      "stats.PoolStats", "stats.RelayEngineStats",
      // dev.kvrelay.engine.wan: the WAN values an embedder reads (catalog, readiness, load entries, the source handle)
      "wan.AdapterReadiness", "wan.CatalogSnapshot", "wan.DescriptorException", "wan.DescriptorViolation",
      "wan.KvPoolDescriptor", "wan.KvPoolLoadEntry", "wan.ModelKey", "wan.RelaySource",
      "wan.TopologyEntry", "wan.TopologyMember", "wan.TopologySnapshot");

  /**
   * The public types nested in the engine's API types (builders, the parts of the stats, answer cases): each is
   * named through its enclosing type, and adding one is an API decision too.
   */
  private static final Set<String> ENGINE_NESTED_API = Set.of(
      "RelayConfigViolation.Reason", "RelayEngine.Builder", "RelayEngineConfig.Builder",
      "consumer.GlobalViewAnswer.Status", "consumer.RelayConsumer.Builder", "consumer.ReplicaTermination.Action",
      "stats.PoolStats.Actor", "stats.PoolStats.ActorState", "stats.PoolStats.Load", "stats.PoolStats.QueryFailureKind",
      "stats.PoolStats.Recovery", "stats.PoolStats.SourceRecovery", "stats.PoolStats.SourceRecoveryState",
      "stats.RelayEngineStats.EventPlaneFaultKind", "stats.RelayEngineStats.Hubs", "stats.RelayEngineStats.Stream",
      "stats.RelayEngineStats.Streams", "stats.RelayEngineStats.SubscriberLag");

  private static final Set<String> GRPC_API =
      Set.of("client.ClientStats", "client.RelayGrpcClient", "server.RelayGrpcServer");

  private static JavaClasses classes;
  private static Map<String, ModuleDescriptor> modules;

  @BeforeAll
  static void importMainClasses() throws IOException {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar") && !location.contains("/benchmarks/"))
        .importPackages("dev.kvrelay");
    modules = new HashMap<>();
    Enumeration<URL> descriptors = ArchitectureTest.class.getClassLoader().getResources("module-info.class");
    while (descriptors.hasMoreElements()) {
      try (InputStream in = descriptors.nextElement().openStream()) {
        ModuleDescriptor d = ModuleDescriptor.read(in);
        if (d.name().startsWith("dev.kvrelay.")) {
          modules.put(d.name(), d);
        }
      }
    }
  }

  @Test
  void theModuleDescriptorsOfEveryProductModuleAreOnTheClassPath() {
    assertThat(modules).containsKeys(ENGINE, GRPC, "dev.kvrelay.api", "dev.kvrelay.ckf", "dev.kvrelay.spi.discovery",
        "dev.kvrelay.spi.eventplane");
    assertThat(classes.containPackage(ENGINE + ".hub")).as("engine main classes imported").isTrue();
    assertThat(classes.containPackage(GRPC + ".wire")).as("gRPC main classes imported").isTrue();
  }

  @Test
  void theEngineExportsItsRootTheConsumerTheWanValuesAndTheStatsOnly() {
    assertThat(unqualifiedExports(ENGINE)).containsExactlyInAnyOrder(
        ENGINE, ENGINE + ".consumer", ENGINE + ".wan", ENGINE + ".stats");
    assertThat(unqualifiedExports(GRPC)).containsExactlyInAnyOrder(GRPC + ".client", GRPC + ".server");
  }

  @Test
  void theEnginesWirePlumbingIsExportedOnlyToTheGrpcModuleAndTheLauncher() {
    assertThat(qualifiedExports(ENGINE)).containsOnly(Map.entry(ENGINE + ".wire", Set.of(GRPC, LAUNCHER)));
    assertThat(qualifiedExports(GRPC)).isEmpty();
  }

  @Test
  void theExportedTypesAreExactlyTheListedApi() {
    assertThat(apiTypes(ENGINE)).containsExactlyInAnyOrderElementsOf(ENGINE_API);
    assertThat(apiTypes(GRPC)).containsExactlyInAnyOrderElementsOf(GRPC_API);
  }

  @Test
  void theNestedExportedTypesAreExactlyTheListedApi() {
    assertThat(nestedApiTypes(ENGINE)).containsExactlyInAnyOrderElementsOf(ENGINE_NESTED_API);
  }

  @Test
  void noInternalTypeIsReachableFromAnExportedPublicSignature() {
    List<String> leaks = new ArrayList<>();
    for (JavaClass c : classes) {
      if (!isApi(c)) {
        continue;
      }
      Optional<JavaClass> superclass = c.getRawSuperclass();
      superclass.ifPresent(s -> check(c.getName() + " extends", s, leaks));
      for (JavaClass i : c.getRawInterfaces()) {
        check(c.getName() + " implements", i, leaks);
      }
      for (JavaMember m : c.getMembers()) {
        if (!isVisibleOutside(m.getModifiers(), c)) {
          continue;
        }
        String where = c.getName() + "." + m.getName();
        if (m instanceof JavaField f) {
          involved(f.getType()).forEach(t -> check(where, t, leaks));
        } else if (m instanceof JavaCodeUnit u) {
          involved(u.getReturnType()).forEach(t -> check(where + " returns", t, leaks));
          for (JavaType p : u.getParameterTypes()) {
            involved(p).forEach(t -> check(where + " takes", t, leaks));
          }
          u.getThrowsClause().getTypes().forEach(t -> check(where + " throws", t, leaks));
        }
      }
    }
    assertThat(leaks).as("internal types reachable from exported public signatures").isEmpty();
  }

  @Test
  void otherModulesUseOnlyTheEnginesExportedTypes() {
    for (String reader : List.of(GRPC, LAUNCHER)) {
      Set<String> internal = enginePackages().stream()
          .filter(p -> !exportedTo(ENGINE, p, reader))
          .collect(Collectors.toCollection(TreeSet::new));
      assertThat(internal).as("engine packages not exported to " + reader).contains(ENGINE + ".hub");
      noClasses().that().resideInAnyPackage(reader + "..")
          .should().dependOnClassesThat().resideInAnyPackage(internal.toArray(String[]::new))
          .because("the engine's inside is not exported to " + reader)
          .check(classes);
    }
  }

  @Test
  void modulesDependOnlyDownward() {
    noClasses().that().resideInAnyPackage("dev.kvrelay.api..", "dev.kvrelay.ckf..", "dev.kvrelay.spi..")
        .should().dependOnClassesThat().resideInAnyPackage(ENGINE + "..", GRPC + "..", "dev.kvrelay.launcher..")
        .check(classes);
    noClasses().that().resideInAnyPackage(ENGINE + "..")
        .should().dependOnClassesThat().resideInAnyPackage(GRPC + "..", "dev.kvrelay.launcher..")
        .because("the engine is pure Java and knows no transport")
        .check(classes);
    noClasses().that().resideInAnyPackage(GRPC + "..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.kvrelay.launcher..")
        .check(classes);
  }

  @Test
  void pluginsNeverImportTheEngineAndTheLauncherReachesThemOnlyThroughTheirSpi() {
    String[] plugins = {"dev.kvrelay.discovery..", "dev.kvrelay.eventplane..", "dev.kvrelay.requestplane.."};
    assertThat(List.of("dev.kvrelay.discovery.etcd", "dev.kvrelay.discovery.kubernetes", "dev.kvrelay.discovery.file",
        "dev.kvrelay.eventplane.zmq", "dev.kvrelay.eventplane.nats", "dev.kvrelay.requestplane.tcp"))
        .as("the six plugins' main classes are imported (the launcher depends on all of them)")
        .allMatch(classes::containPackage);
    noClasses().that().resideInAnyPackage(plugins)
        .should().dependOnClassesThat().resideInAnyPackage(ENGINE + "..", GRPC + "..", "dev.kvrelay.launcher..")
        .because("plugins depend only on their SPI and their client library")
        .check(classes);
    // One recorded exception: the diagnostic endpoints are hosted on the TCP request plane's server, which the
    // request-plane SPI does not abstract yet (it has a client side only). A server SPI removes it.
    noClasses().that().resideInAnyPackage("dev.kvrelay.launcher..")
        .and().resideOutsideOfPackage("dev.kvrelay.launcher.diagnostics..")
        .should().dependOnClassesThat().resideInAnyPackage(plugins)
        .because("the launcher finds plugins through the SPI registries (ServiceLoader), by name")
        .check(classes);
  }

  @Test
  void theProducerSideNeverImportsTheConsumerSide() {
    noClasses().that().resideInAnyPackage(ENGINE + ".membership..", ENGINE + ".topology..", ENGINE + ".catalog..",
            ENGINE + ".load..", ENGINE + ".actor..", ENGINE + ".recovery..", ENGINE + ".hub..", ENGINE + ".stream..")
        .should().dependOnClassesThat().resideInAnyPackage(ENGINE + ".consumer..")
        .because("values both sides use live in dev.kvrelay.engine.wan")
        .check(classes);
  }

  @Test
  void theWanValuesAndTheStatsDependOnNoOtherEnginePackage() {
    noClasses().that().resideInAnyPackage(ENGINE + ".wan..", ENGINE + ".stats..")
        .should().dependOnClassesThat(enginePackageOtherThan(ENGINE + ".wan", ENGINE + ".stats"))
        .check(classes);
    noClasses().that().resideInAnyPackage(ENGINE + ".wire..")
        .should().dependOnClassesThat(enginePackageOtherThan(ENGINE + ".wire", ENGINE + ".wan"))
        .because("the wire plumbing reads WAN values and nothing else of the engine")
        .check(classes);
  }

  @Test
  void internalPackagesReadOnlyTheRootsConfigurationValues() {
    noClasses().that().resideInAnyPackage(ENGINE + ".*..")
        .should().dependOnClassesThat(DescribedPredicate.describe("root engine types other than the configuration",
            (JavaClass t) -> t.getPackageName().equals(ENGINE)
                && !Set.of("RelayEngineConfig", "RelayConfigKey").contains(t.getSimpleName())))
        .because("the root package assembles the engine; its inside depends only on the config values it is given")
        .check(classes);
  }

  @Test
  void noPackageCycles() {
    slices().matching(ENGINE + ".(*)..").should().beFreeOfCycles().check(classes);
    slices().matching(GRPC + ".(*)..").should().beFreeOfCycles().check(classes);
    slices().matching("dev.kvrelay.(*)..").should().beFreeOfCycles().check(classes);
  }

  // ---- helpers

  private static DescribedPredicate<JavaClass> enginePackageOtherThan(String... allowed) {
    Set<String> ok = Set.of(allowed);
    return DescribedPredicate.describe("engine classes outside " + ok, (JavaClass t) -> {
      String p = t.getPackageName();
      return (p.equals(ENGINE) || p.startsWith(ENGINE + ".")) && ok.stream().noneMatch(a -> p.equals(a)
          || p.startsWith(a + "."));
    });
  }

  private static Set<String> unqualifiedExports(String module) {
    return modules.get(module).exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
        .collect(Collectors.toSet());
  }

  /** The qualified exports of {@code module}: package → the modules it is exported to. */
  private static Map<String, Set<String>> qualifiedExports(String module) {
    return modules.get(module).exports().stream().filter(ModuleDescriptor.Exports::isQualified)
        .collect(Collectors.toMap(ModuleDescriptor.Exports::source, ModuleDescriptor.Exports::targets));
  }

  private static boolean exportedTo(String module, String pkg, String reader) {
    return modules.get(module).exports().stream().anyMatch(e -> e.source().equals(pkg)
        && (!e.isQualified() || e.targets().contains(reader)));
  }

  private static Set<String> enginePackages() {
    return classes.stream().map(JavaClass::getPackageName).filter(p -> p.equals(ENGINE) || p.startsWith(ENGINE + "."))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The public top-level types of {@code module}'s exported packages, relative to the module name. */
  private static Set<String> apiTypes(String module) {
    Set<String> exported = unqualifiedExports(module);
    return classes.stream()
        .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)
            && exported.contains(c.getPackageName()))
        .map(c -> c.getName().substring(module.length() + 1))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> nestedApiTypes(String module) {
    Set<String> exported = unqualifiedExports(module);
    return classes.stream()
        .filter(c -> !c.isTopLevelClass() && !c.isAnonymousClass() && !c.isLocalClass() && isApi(c)
            && exported.contains(c.getPackageName()))
        .map(c -> c.getName().substring(module.length() + 1).replace('$', '.'))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** Whether {@code c} is reachable by an embedder: public, nested only in public types, in an exported package. */
  private static boolean isApi(JavaClass c) {
    for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
      if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return modules.values().stream().anyMatch(d -> d.exports().stream()
        .anyMatch(e -> !e.isQualified() && e.source().equals(c.getPackageName())));
  }

  private static boolean isVisibleOutside(Set<JavaModifier> modifiers, JavaClass owner) {
    return modifiers.contains(JavaModifier.PUBLIC)
        || (modifiers.contains(JavaModifier.PROTECTED) && !owner.getModifiers().contains(JavaModifier.FINAL));
  }

  private static Set<JavaClass> involved(JavaType type) {
    return type.getAllInvolvedRawTypes();
  }

  private static void check(String where, JavaClass type, List<String> leaks) {
    JavaClass t = type.getBaseComponentType();
    if (t.getPackageName().startsWith("dev.kvrelay.") && !isApi(t)) {
      leaks.add(where + " -> " + t.getName());
    }
  }
}
