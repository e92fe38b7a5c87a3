package regintel.testservers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;

/**
 * Runs Neo4j embedded as the Bolt + Cypher server the Go tests talk to in
 * place of Memgraph. Usage: java -jar neo4j-test-server.jar PORT [DATA_DIR].
 * Bolt listens on 127.0.0.1:PORT with auth disabled; data lives in DATA_DIR
 * (a fresh temp dir when omitted, removed at exit). SIGTERM shuts it down
 * cleanly through the shutdown hook.
 */
public final class Neo4jTestServer {
    private Neo4jTestServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: neo4j-test-server PORT [DATA_DIR]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        boolean ownDataDir = args.length < 2;
        Path dataDir = ownDataDir ? Files.createTempDirectory("regintel-neo4j") : Path.of(args[1]);
        Files.createDirectories(dataDir);

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(dataDir)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                // Small and throwaway: keep memory modest, skip durability work.
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(128))
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("neo4j test server stopping");
            dbms.shutdown();
            if (ownDataDir) {
                deleteRecursively(dataDir);
            }
            stopped.countDown();
        }, "neo4j-shutdown"));

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        // A trivial transaction proves the default database is online before we say so.
        db.executeTransactionally("RETURN 1");
        System.out.println("neo4j test server ready bolt://127.0.0.1:" + port);
        System.out.flush();
        stopped.await();
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not remove " + root + ": " + e.getMessage());
        }
    }
}
