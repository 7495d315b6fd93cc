// Grow.java — heapwalk PID's test workload: says "READY pid" and waits
// on its standard input; each line read holds a number N: it makes N
// more Grow$Leaked objects, keeps them all, and says "LEAKED total" (its
// own count, which the test compares with what heapwalk calls new).
// Ends when its standard input closes.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

public class Grow {
    static final class Leaked {
        final byte[] data = new byte[64];
        final int n;
        Leaked(int n) { this.n = n; }
    }

    static final List<Leaked> KEPT = new ArrayList<>();

    public static void main(String[] a) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            int n = Integer.parseInt(line.trim());
            for (int i = 0; i < n; i++)
                KEPT.add(new Leaked(i));
            System.out.println("LEAKED " + KEPT.size());
            System.out.flush();
        }
    }
}
