// The JVM workload of test/lab/plans.lab.test.ts: allocates MIB mebibytes of heap in 1 MiB
// arrays, writes every page of them, prints "touched MIB MiB" and then keeps them (sleeps), so
// /proc/PID/numa_maps shows where the heap landed. `java Touch.java --jar FILE` (source-file
// mode) compiles this file (its path from the launcher's jdk.launcher.sourcefile) and writes it as an executable jar (Main-Class: Touch), for units
// that run `java -jar`.
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

public class Touch {
  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--jar")) {
      makeJar(Path.of(args[1]));
      return;
    }
    int mib = args.length > 0 ? Integer.parseInt(args[0]) : 64;
    List<byte[]> kept = new ArrayList<>();
    for (int i = 0; i < mib; i++) {
      byte[] a = new byte[1 << 20];
      for (int p = 0; p < a.length; p += 4096) a[p] = (byte) (i + 1);
      kept.add(a);
    }
    System.out.println("touched " + kept.size() + " MiB");
    System.out.flush();
    while (true) Thread.sleep(60_000);
  }

  static void makeJar(Path jar) throws Exception {
    Path dir = Files.createTempDirectory("touch");
    Path source = Path.of(System.getProperty("jdk.launcher.sourcefile", "Touch.java"));
    int rc = javax.tools.ToolProvider.getSystemJavaCompiler()
        .run(null, null, null, "-d", dir.toString(), source.toString());
    if (rc != 0) throw new IllegalStateException("javac: " + rc);
    Manifest mf = new Manifest();
    mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Touch");
    try (JarOutputStream out = new JarOutputStream(new FileOutputStream(jar.toFile()), mf)) {
      out.putNextEntry(new JarEntry("Touch.class"));
      out.write(Files.readAllBytes(dir.resolve("Touch.class")));
      out.closeEntry();
    }
  }
}
