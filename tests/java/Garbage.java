// Garbage — a live structure, then garbage that refers into it, then an
// OutOfMemoryError that the JVM answers with a heap dump and no GC
// before it (-XX:+HeapDumpOnOutOfMemoryError): the dump holds the
// garbage. The array asked for last is larger than any heap may be, so
// the JVM refuses it at once, with no collection that would free the
// garbage first. Sizes are small enough that no young collection runs
// on the way (-Xmn well above them).
public class Garbage {
	static final class Node {
		byte[] payload;
		Node next;
	}

	static final class Live {
		Node[] nodes;
		long[] table;
	}

	static final class Holder {
		Object ref;
		Holder next;
		int[] pad;
	}

	static Live live;
	static Holder junk;

	public static void main(String[] args) {
		live = new Live();
		live.nodes = new Node[200];
		live.table = new long[500];
		for (int i = 0; i < live.nodes.length; i++) {
			Node n = new Node();
			n.payload = new byte[100 + i];
			if (i > 0)
				live.nodes[i - 1].next = n;
			live.nodes[i] = n;
		}
		// garbage: a chain of holders each referring to a live node (and
		// one to the Live object itself), dropped before the error
		for (int i = 0; i < 300; i++) {
			Holder h = new Holder();
			h.ref = i == 0 ? live : live.nodes[i % live.nodes.length];
			h.pad = new int[10];
			h.next = junk;
			junk = h;
		}
		junk = null;
		System.out.println("READY");
		long[] huge = new long[Integer.MAX_VALUE];
		System.out.println(huge.length);
	}
}
