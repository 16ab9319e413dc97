module goatarena.invalid/bot

go 1.19
