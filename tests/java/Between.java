// Between.java — the workload of the path-between and deep-size tests
// (tests/test_between.c): a chain A -> B -> C by the fields b and c,
// held by the static Between.ROOT; C holds no reference. Quiet after
// READY.
public class Between {
    static final class A { B b; int v = 1; }
    static final class B { C c; int v = 2; }
    static final class C { int v = 3; }
    static A ROOT;
    static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        A a = new A();
        a.b = new B();
        a.b.c = new C();
        ROOT = a;
        for (int k = 0; k < 3; k++) { System.gc(); Thread.sleep(200); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        while (!stop)
            Thread.sleep(100_000);
    }
}
