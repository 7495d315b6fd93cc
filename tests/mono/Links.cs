// Links.cs — linked lists of lengths the program knows, for long-chains
// on Mono (tests/test_mono.c, test_mono_chains). Compiled with mcs at
// test time and run under mono --profile=log:heapshot,...
//
// A list of 2000 Link through Next, and one of 600 DLink linked both
// ways (Next and Prev), held by statics, counted by walking them after
// a collection (the heapshot's); the counts go to the file named by
// the argument as one JSON line: {"Link":2000,"DLink":600}. The fields'
// places are the program's (explicit layout), so that the test knows
// the labels the dump gives them: +16 and +24 past a 64-bit header.
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Links {
	[StructLayout(LayoutKind.Explicit)]
	class Link { [FieldOffset(0)] public Link Next; }

	[StructLayout(LayoutKind.Explicit)]
	class DLink { [FieldOffset(0)] public DLink Next; [FieldOffset(8)] public DLink Prev; }

	static class Program {
		static Link head;
		static DLink first;

		static void Main(string[] args)
		{
			for (int i = 0; i < 2000; i++)
				head = new Link { Next = head };
			first = new DLink();
			DLink last = first;
			for (int i = 1; i < 600; i++) {
				DLink d = new DLink { Prev = last };
				last.Next = d;
				last = d;
			}
			GC.Collect();
			int links = 0, dlinks = 0;
			for (Link l = head; l != null; l = l.Next)
				links++;
			for (DLink d = last; d != null; d = d.Prev)
				dlinks++;
			File.WriteAllText(args[0], "{\"Link\":" + links + ",\"DLink\":" + dlinks + "}\n");
		}
	}
}
