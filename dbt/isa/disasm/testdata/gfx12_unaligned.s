// Hand-written GFX12 words whose SGPR/TTMP tuples are not aligned:
// llvm-objdump prints "; Warning: ... scalar reg isn't aligned N" after them.
.text
.globl f
.type f,@function
f:
.long 0xbe810101
.long 0xbe810102
.long 0xbe820103
.long 0xd44c0001, 0x00020d05
.long 0xd7006a05, 0x00020a04
.long 0xf4004101, 0xf8000000
.long 0xf4004041, 0xf8000000
.long 0xbe840181
.long 0xbf810000
.long 0xf4020001, 0xf8000000
.long 0xf4020002, 0xf8000000
.long 0x8b7e027f
.long 0xbef0017c
.long 0xbef1017c
