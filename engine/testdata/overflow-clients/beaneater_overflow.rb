# What beaneater does with a put refused (OUT_OF_MEMORY) and a put stored
# buried (BURIED <id>). Usage: ruby beaneater_overflow.rb PORT
$LOAD_PATH.unshift "/work/shared/peers/src/work/beaneater/lib"
require "beaneater"

port = ARGV[0]
[["capped", "OUT_OF_MEMORY"], ["buried", "BURIED <id>"]].each do |tube, word|
  b = Beaneater.new("127.0.0.1:#{port}")
  t = b.tubes[tube]
  t.put "first"
  begin
    r = t.put "second"
    puts "beaneater #{word}: returned #{r.inspect}"
  rescue StandardError => e
    puts "beaneater #{word}: raised #{e.class} (a StandardError) #{e.message}"
  end
  puts "beaneater #{word}: next command: #{t.stats.current_jobs_ready} ready"
  b.close
end
