// SPDX-License-Identifier: GPL-2.0
/*
 * Replays inputs through a fuzz target without libFuzzer, so `make check`
 * runs every kept regression input with the normal compiler.
 */
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 20];
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
