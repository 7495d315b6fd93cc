// Focus.java — the workload of the analysis root and of the references
// left out (tests/test_focus.c), then quiet after READY. A leak with two
// holders, counted by construction:
//
//   LeakRegistry.LISTENERS   an ArrayList of 200 Listeners, each holding
//                            a Session: the leak, 4 references from the
//                            class to a session
//   AuditLog.RECENT          a HashMap of 10 AuditEntries holding the
//                            sessions 190..199 too: the second holder,
//                            5 references from the class to a session
//                            (RECENT, table, [i], value, session)
//
// Each session is itself, its String user ("user" + i: a String and its
// byte[]) and its byte[] payload: 4 objects. So the list alone retains
// itself, its Object[], 200 listeners and the 190 sessions no audit
// entry holds: 962 objects; what it reaches is 1002 (200 sessions).
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

public class Focus {
    static final class Session {
        final String user;
        final byte[] payload;
        Session(String user, int size) { this.user = user; this.payload = new byte[size]; }
    }
    static final class Listener {
        final Session session;
        Listener(Session s) { session = s; }
    }
    static final class LeakRegistry {
        static final List<Listener> LISTENERS = new ArrayList<>();
    }
    static final class AuditEntry {
        final Session session;
        AuditEntry(Session s) { session = s; }
    }
    static final class AuditLog {
        static final Map<String, AuditEntry> RECENT = new HashMap<>();
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 200; i++) {
            Session s = new Session("user" + i, 1024);
            LeakRegistry.LISTENERS.add(new Listener(s));
            if (i >= 190)
                AuditLog.RECENT.put("k" + i, new AuditEntry(s));
        }
        for (int i = 0; i < 3; i++) { System.gc(); Thread.sleep(100); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
