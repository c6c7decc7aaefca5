import GeofenceCLI

await GeofenceCommand.run(CommandLine.arguments.dropFirst())
