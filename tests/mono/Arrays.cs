// Arrays.cs — arrays whose every element the program knows, for the
// labels of their references on Mono (tests/test_mono.c,
// test_mono_array_labels). Compiled with mcs at test time and run under
// mono --profile=log:heapshot,...
//
// Held by statics, after a collection (the heapshot's): N = 60
// elements each; every third Pair of pairs (a struct of 24 bytes,
// explicit layout: A at +0, B at +16) holds a Left and a Right; every
// second element of lefts a Left; every fifth of objects (an object[]
// of 77) a Right; every element of things (an interface's array) a
// Thing; jagged's four rows are lefts. The counts go to the file named
// by the argument as one JSON line.
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Arrays {
	class Left { }
	class Right { }
	interface IThing { }
	class Thing : IThing { }

	[StructLayout(LayoutKind.Explicit)]
	struct Pair {
		[FieldOffset(0)] public Left A;
		[FieldOffset(8)] public long Pad;
		[FieldOffset(16)] public Right B;
	}

	static class Program {
		const int N = 60;
		static Pair[] pairs = new Pair[N];
		static Left[] lefts = new Left[N];
		static object[] objects = new object[77];
		static IThing[] things = new IThing[N];
		static Left[][] jagged = new Left[4][];

		static void Main(string[] args)
		{
			int p = 0, l = 0, o = 0;
			for (int i = 0; i < N; i += 3, p++)
				pairs[i] = new Pair { A = new Left(), B = new Right() };
			for (int i = 0; i < N; i += 2, l++)
				lefts[i] = new Left();
			for (int i = 0; i < objects.Length; i += 5, o++)
				objects[i] = new Right();
			for (int i = 0; i < N; i++)
				things[i] = new Thing();
			for (int i = 0; i < jagged.Length; i++)
				jagged[i] = lefts;
			GC.Collect();
			GC.WaitForPendingFinalizers();
			File.WriteAllText(args[0], "{\"Pair\":" + p + ",\"Left\":" + l + ",\"Right\":" + o +
					  ",\"Thing\":" + things.Length + "}\n");
			GC.KeepAlive(pairs);
			GC.KeepAlive(objects);
			GC.KeepAlive(jagged);
		}
	}
}
