This is not OpenCL C.
print("hello")
