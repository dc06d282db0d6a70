/*
 * check-rev.S - check-body.S alone in .text, for the test build to byte-reverse
 * (objcopy -O binary -j .text --reverse-bytes=4) into check-rev.bin, which pattern.S includes.
 */
	.text
#include "check-body.S"
	.section .note.GNU-stack,"",@progbits
