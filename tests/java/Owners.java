// Owners.java — the workload of tests/test_owners.c: objects that float
// to the top of the dominator tree (held from two classes' statics, so
// only the virtual root dominates them), and instances whose fields are
// zero or not, for the conditional tags. Counts are fixed here and
// repeated by the test from this construction.
public class Owners {
    static final class Part {
        final int id;
        final byte[] payload = new byte[500];
        Part(int id) { this.id = id; }
    }
    static final class Holder { final int id; Part part; Holder(int id) { this.id = id; } }
    // a second class whose statics hold the same parts
    static final class Other {
        static Part keep;
        static final Object[] list = new Object[3];
    }
    // part 1: held by holder 1 (Owners.holder) and by Other.keep; parts
    // 2..4: in Owners.list and in Other.list. Without rules all four
    // float; `owns Owners$Holder part` gives part 1 to holder 1.
    static Holder holder;
    static final Object[] list = new Object[3];

    // Conditional tags: conn i (0..11) has port 0 when i < 7 (7 zero, 5
    // not), peer null when i % 3 == 0 (4 null, 8 not), opened 0 when
    // i < 2 (2 zero, 10 not), open false when i % 2 == 1 (6 zero, 6 not).
    static final class Conn {
        int port;
        Object peer;
        long opened;
        boolean open;
    }
    static final Conn[] conns = new Conn[12];

    public static void main(String[] args) throws Exception {
        plant(); // in a method of its own: no local variable stays a GC root
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }

    static void plant() {
        holder = new Holder(1);
        holder.part = new Part(1);
        Other.keep = holder.part;
        for (int i = 0; i < 3; i++)
            list[i] = Other.list[i] = new Part(2 + i);
        for (int i = 0; i < 12; i++) {
            Conn c = new Conn();
            c.port = i < 7 ? 0 : 8000 + i;
            c.peer = i % 3 == 0 ? null : new Object();
            c.opened = i < 2 ? 0 : 1000L * i;
            c.open = i % 2 == 0;
            conns[i] = c;
        }
    }
}
