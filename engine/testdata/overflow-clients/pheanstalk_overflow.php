<?php
// What pheanstalk v5 does with a put refused (OUT_OF_MEMORY) and a put
// stored buried (BURIED <id>). Usage: php pheanstalk_overflow.php PORT
require '/work/shared/peers/src/work/pheanstalk/vendor/autoload.php';

use Pheanstalk\Pheanstalk;
use Pheanstalk\Values\TubeName;

$port = (int) $argv[1];
define('PEERS_BEANSTALKD_PORT', $port); // the peer suite's checkout reads it
foreach ([['capped', 'OUT_OF_MEMORY'], ['buried', 'BURIED <id>']] as [$tube, $word]) {
    $p = Pheanstalk::create('127.0.0.1', $port);
    $p->useTube(new TubeName($tube));
    $p->put('first');
    try {
        $r = $p->put('second');
        echo "pheanstalk $word: returned ", get_class($r), ' id ', $r->getId(), "\n";
    } catch (\Throwable $e) {
        $kind = $e instanceof \Exception ? 'Exception' : 'Error (not an Exception)';
        $id = $e instanceof \Pheanstalk\Exception\JobBuriedException ? ' job id ' . $e->jobId->getId() : '';
        echo "pheanstalk $word: threw ", get_class($e), " [$kind]$id ", $e->getMessage(), "\n";
    }
    $s = $p->statsTube(new TubeName($tube));
    echo "pheanstalk $word: next command: ", $s->currentJobsReady, " ready\n";
}
