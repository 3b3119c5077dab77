# The entry point of bcryptprimitives.dll (see bcryptprimitives.def): it
# holds no code of its own, so loading it only has to succeed.
	.text
	.globl DllMain
DllMain:
	movl $1, %eax
	ret
