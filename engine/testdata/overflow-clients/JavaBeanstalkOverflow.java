// What JavaBeanstalkClient does with a put refused (OUT_OF_MEMORY) and a
// put stored buried (BURIED <id>). Usage: java JavaBeanstalkOverflow PORT
import com.surftools.BeanstalkClientImpl.ClientImpl;

public class JavaBeanstalkOverflow {
    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        String[][] cases = {{"capped", "OUT_OF_MEMORY"}, {"buried", "BURIED <id>"}};
        for (String[] c : cases) {
            ClientImpl client = new ClientImpl("127.0.0.1", port);
            client.useTube(c[0]);
            client.put(1024, 0, 60, "first".getBytes());
            try {
                long id = client.put(1024, 0, 60, "second".getBytes());
                System.out.println("JavaBeanstalkClient " + c[1] + ": returned " + id);
            } catch (RuntimeException e) {
                System.out.println("JavaBeanstalkClient " + c[1] + ": threw " + e.getClass().getName() + " " + e.getMessage());
            }
            System.out.println("JavaBeanstalkClient " + c[1] + ": next command: "
                + client.statsTube(c[0]).get("current-jobs-ready") + " ready");
            client.close();
        }
    }
}
