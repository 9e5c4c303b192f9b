-- coroutine.status and coroutine.resume with arguments that are not coroutines: 5.1
-- words the error without "got ...".
print(pcall(coroutine.status, "x"))
print(pcall(coroutine.status))
print(pcall(coroutine.resume, {}))
print(pcall(coroutine.resume, nil))
