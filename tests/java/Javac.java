// Javac.java — a heap of long package names, as a compiler's: javac runs
// in this JVM on a generated source and its syntax trees and symbols are
// kept (com.sun.tools.javac.tree.JCTree$JCMethodInvocation and the like,
// names alike in their first 30 characters). Instances of classes of the
// platform class loader (java.sql) sit beside those of the application
// loader, so that two loaders of long, alike names have instances.
import com.sun.source.util.JavacTask;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

public class Javac {
    static final List<Object> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        StringBuilder src = new StringBuilder("public class Gen {\n");
        for (int i = 0; i < 400; i++)
            src.append("  int m").append(i).append("(int a) { return a * ").append(i)
               .append(" + m").append(i > 0 ? i - 1 : 0).append("(a - 1); }\n");
        src.append("}\n");
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Gen.java"),
                                                       JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignore) {
                return src;
            }
        };
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        JavacTask task = (JavacTask) javac.getTask(null, null, null, List.of("-proc:none"), null, List.of(file));
        KEEP.add(task.parse());
        KEEP.add(task.analyze());
        KEEP.add(task);
        for (int i = 0; i < 50; i++)
            KEEP.add(new java.sql.Timestamp(i));
        for (int k = 0; k < 3; k++) {
            System.gc();
            Thread.sleep(200);
        }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
